#!/bin/bash
# step 3 (RLHF) on top of our SFT actor and reward model
python train.py \
  --actor_model_name_or_path checkpoints/sft-gru-v2 \
  --critic_model_name_or_path checkpoints/rm-gru-v1 \
  --data_path data/prompts_train.jsonl \
  --per_device_generation_batch_size 32 --per_device_training_batch_size 16 \
  --actor_learning_rate 1e-3 --critic_learning_rate 5e-4 --kl_ctl 0.1 \
  --max_answer_seq_len 20 --num_train_steps 140 --seed 1234 \
  --output_dir ./output_step3 2>&1 | tee train.log
