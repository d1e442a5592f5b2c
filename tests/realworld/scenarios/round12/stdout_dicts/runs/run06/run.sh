#!/bin/sh
export PYTHONUNBUFFERED=1
nohup python train.py --learning_rate 5e-4 --per_device_train_batch_size 32 --num_train_epochs 8 --warmup_ratio 0.06 --weight_decay 0.01 --max_grad_norm 1.0 --logging_steps 25 --output_dir tagger_out &
