python.sh train.py --cfg config/yolov3_eval.cfg --eval_interval 1 --weights_path yolov3.weight
