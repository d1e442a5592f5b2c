#!/bin/bash
#SBATCH --job-name=mlp-sweep-b
#SBATCH --partition=preempt
#SBATCH --requeue
#SBATCH --gres=gpu:1
#SBATCH --time=04:00:00
#SBATCH --output=slurm-%j.out

source ~/.venvs/ml/bin/activate
srun python train.py
