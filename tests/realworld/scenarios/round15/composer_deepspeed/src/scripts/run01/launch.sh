#!/bin/bash
accelerate launch --config_file accelerate_config.yaml train.py --lr 0.05 --batch_size 32 --gradient_accumulation_steps 2 --epochs 15 2>&1 | tee train.log
