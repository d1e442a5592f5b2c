python main.py --mode distill_basic --dataset MNIST --arch LeNet
