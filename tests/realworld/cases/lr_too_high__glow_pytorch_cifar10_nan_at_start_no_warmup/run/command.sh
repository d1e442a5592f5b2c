python train.py --download
