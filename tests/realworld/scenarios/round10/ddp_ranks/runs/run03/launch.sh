#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
torchrun --standalone --nproc-per-node 2 train.py 2>&1 | tee logs/torchrun.log
