python3 ./imagenet-resnet.py --data ../data/ -d 50 --mode resnet --eval --load train_log/imagenet-resnet-d50-webvision2018-200epochs/model-1055000
