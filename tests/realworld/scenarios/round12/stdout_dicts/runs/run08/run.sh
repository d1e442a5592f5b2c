#!/bin/bash
export PYTHONUNBUFFERED=1
nohup python train.py \
    --learning_rate 0.01 \
    --per_device_train_batch_size 16 \
    --num_train_epochs 10 \
    --warmup_ratio 0.0 \
    --weight_decay 0.0 \
    --max_grad_norm 1.0 \
    --logging_steps 25 \
    --fp16 &
