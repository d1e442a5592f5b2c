python train.py --gpu 1 --mode DMCNN
python train.py --gpu 1 --mode HMEAE
