train_cifar.py --model revnet38
