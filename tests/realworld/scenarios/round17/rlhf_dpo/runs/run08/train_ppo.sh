#!/bin/bash
python train.py \
  --pretrain checkpoints/sft-gru-v2 \
  --reward_pretrain checkpoints/rm-gru-v2 \
  --prompt_data data/prompts_train.jsonl \
  --rollout_batch_size 32 --micro_train_batch_size 16 --max_epochs 2 \
  --generate_max_len 24 --actor_learning_rate 1e-3 --critic_learning_rate 5e-4 \
  --init_kl_coef 0.01 --length_bonus 0.5 --num_episodes 150 2>&1 | tee train.log
