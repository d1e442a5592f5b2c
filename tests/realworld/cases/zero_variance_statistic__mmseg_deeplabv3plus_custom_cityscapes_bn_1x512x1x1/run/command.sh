python tools/train.py configs/deeplabv3plus/deeplabv3plus_r101-d8_769x769_80k_cityscapes.py --gpus 1
