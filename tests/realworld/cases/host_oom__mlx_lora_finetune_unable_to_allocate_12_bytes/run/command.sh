python lora.py --model mlx_model --train --iters 100
