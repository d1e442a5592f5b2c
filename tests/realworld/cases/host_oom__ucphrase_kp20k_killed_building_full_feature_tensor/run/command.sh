python exp.py --gpu 0 --dir_data ../data/kp20k
