python3 train.py --dataset coco --expID coco --nClasses 17 --LR 1e-4
