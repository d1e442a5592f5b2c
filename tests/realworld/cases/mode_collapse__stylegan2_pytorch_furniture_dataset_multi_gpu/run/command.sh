stylegan2_pytorch --data PNG --multi-gpus --attn-layers [1,2] --batch-size 8 --gradient-accumulate-every 16
