#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc_per_node 2 --tee 3 train.py --epochs 20 --batch-size 128 --lr 2e-3 2>&1 | tee logs/train.log
