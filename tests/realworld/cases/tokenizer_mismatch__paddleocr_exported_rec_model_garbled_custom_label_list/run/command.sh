python3 tools/export_model.py -c configs/rec/rec_icdar15_train.yml -o Global.checkpoints="./output/rec_r34_vd_crnn/best_accuracy" Global.save_inference_dir="./inference/rec_r34_vd_crnn/" 
python3 tools/infer/predict_system.py --image_dir="./doc/imgs/1600141374676.jpg" --det_model_dir="./inference/det_db_r50/"  --rec_model_dir="./inference/rec_r34_vd_crnn" 
