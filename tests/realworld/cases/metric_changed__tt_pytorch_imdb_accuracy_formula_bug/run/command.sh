python train.py --gpu=0 --embed_dim=256 --dataset=imdb --n_epochs=100
