python train.py  --weights ' ' --cfg configs/yolov5-standard/yolov5s.yaml --img 640  --bitch-size 16
