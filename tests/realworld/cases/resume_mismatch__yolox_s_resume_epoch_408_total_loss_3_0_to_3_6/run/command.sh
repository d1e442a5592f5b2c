!python tools/train.py -f yolox_s.py -d 1 -b 64 --fp16 -o -c  last_epoch_ckpt.pth --start_epoch 408 --resume
