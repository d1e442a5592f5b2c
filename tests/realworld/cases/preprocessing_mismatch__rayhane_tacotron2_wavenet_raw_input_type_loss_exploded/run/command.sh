python train.py
