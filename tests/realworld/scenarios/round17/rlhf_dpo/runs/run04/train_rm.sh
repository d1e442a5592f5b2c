#!/bin/bash
python train.py \
  --pretrain checkpoints/sft-gru-v2 \
  --dataset data/prefs_rm.jsonl \
  --eval_dataset data/prefs_rm.jsonl --max_eval_samples 400 \
  --save_path ./ckpt/rm_gru --train_batch_size 32 --micro_train_batch_size 32 \
  --max_epochs 18 --learning_rate 3e-3 --d_hidden 128 --logging_steps 10 2>&1 | tee train.log
