#!/bin/bash
#SBATCH --job-name=moons
#SBATCH --cpus-per-task=2
#SBATCH --time=00:20:00
#SBATCH --output=slurm-%j.out
module load python/3.11
source ~/envs/moons/bin/activate
python -u train.py \
    --learning_rate 5e-3 \
    --per_device_train_batch_size 128 \
    --num_train_epochs 40 \
    --weight_decay 0.0 \
    --max_grad_norm 5.0 \
    --logging_steps 20 \
    --output_dir chk
