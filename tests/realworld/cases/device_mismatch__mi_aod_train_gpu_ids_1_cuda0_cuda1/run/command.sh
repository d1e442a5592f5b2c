python tools/train.py configs/MIAOD.py --gpu-ids 1
