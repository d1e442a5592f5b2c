python train.py 0.1 60
python train.py 0.5 114
python train.py 0.5 90
