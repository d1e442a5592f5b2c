python3 train.py --dataset coco --expID exp1 --nClasses 17 --LR 1e-4
