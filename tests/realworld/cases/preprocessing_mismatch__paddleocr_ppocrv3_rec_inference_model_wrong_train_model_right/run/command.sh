# training-engine inference (correct)
python3 tools/infer_rec.py -c configs/rec/PP-OCRv3/ch_PP-OCRv3_rec_distillation.yml -o Global.pretrained_model=output/rec_ppocr_v3_distillation/best_accuracy  Global.infer_img=imgs/233_vin.jpg
# exported inference model (wrong)
python3 tools/infer/predict_rec.py --image_dir="./imgs/233_vin.jpg" --rec_model_dir="./inference/ch_PP-OCRv3_rec_distillation/Teacher" --rec_image_shape="3, 48, 320" --rec_char_dict_path="./ppocr/utils/driving_license_dict.txt"
