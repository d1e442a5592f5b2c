#!/bin/bash
nohup python -u train.py \
  --learning_rate 1e-3 \
  --per_device_train_batch_size 64 \
  --num_train_epochs 15 \
  --warmup_ratio 0.1 \
  --weight_decay 1.0 \
  --max_grad_norm 1.0 \
  --logging_steps 30 \
  --output_dir ./results > train.out 2>&1 &
