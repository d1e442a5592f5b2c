python main.py --dataset selfie2anime --augment_type resize_crop --suffix 20210825 --phase train --img_size 64 --batch_size 1
