python  train.py --device gpu --save_dir ./checkpoint
python  predict.py --device gpu --params_path checkpoints/model_9900/model_state.pdparams
