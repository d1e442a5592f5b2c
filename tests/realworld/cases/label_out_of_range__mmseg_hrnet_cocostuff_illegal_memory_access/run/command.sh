python tools/train.py /content/mmsegmentation/configs/hrnet/fcn_hr18_512x512_80k_ade20k.py
