#!/bin/bash
# tabular baseline
python train.py \
    --learning_rate 1e-3 \
    --per_device_train_batch_size 32 \
    --num_train_epochs 10 \
    --lr_decay_every 2 \
    --weight_decay 0.0 \
    --max_grad_norm 1.0 \
    --logging_steps 20 \
    --output_dir outputs/tab 2>&1 | tee train.log
