#!/usr/bin/env bash
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
nohup python train.py \
  --learning_rate 1e-2 \
  --per_device_train_batch_size 64 \
  --num_train_epochs 8 \
  --warmup_ratio 0.0 \
  --weight_decay 0.01 \
  --max_grad_norm 1.0 \
  --save_steps 200 \
  --output_dir out/gru-seqcls "$@" &
