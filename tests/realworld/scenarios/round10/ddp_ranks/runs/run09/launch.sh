#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc-per-node 2 train.py --epochs 12 --bs 64 --lr 0.05 --freeze-encoder 2>&1 | tee logs/torchrun.log
