python train.py -c 0 --batch_size 8 --optim sgd --lr 5e-2
