python main.py -a vgg16_bn --pretrained --evaluate <SOMEPATH>/imagenet/
