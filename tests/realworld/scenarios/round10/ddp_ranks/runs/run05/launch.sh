#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nnodes 1 --nproc_per_node 2 --tee 3 train.py --epochs 10 --bs 32 --lr 3e-3 2>&1 | tee logs/train.log
