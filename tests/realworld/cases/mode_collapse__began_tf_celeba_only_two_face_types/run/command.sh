pytthon main.py --dataset=CelebA --load_path=CelebA_0625_080047 --use_gpu=True --is_train=False --split valid
