main.py -a alexnet --lr 0.01 ../../datasets/imagenet2012 --workers=10
