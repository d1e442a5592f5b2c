python train.py mot --exp_id all_hrnet --gpus 2 --batch_size 3 --arch 'hrnet_32' --lr 1e-5
