python3 train.py --data /home/ubuntu/imagenet --arch resnet50 --batch-size 64 --learning-rate 0.1 --ngpus 8
watch -n0.1 nvidia-smi
