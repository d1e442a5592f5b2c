python train.py --config=yolact_base_config
