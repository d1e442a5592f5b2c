compress_classifier.py -a resnet50 --pretrained /data/lcm/data/imagenet/ --evaluate
