python main.py -a resnet18 /home/wangtao/imagenet/ILSVRC/Data/CLS-LOC
