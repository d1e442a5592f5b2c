python3 train.py --resume
