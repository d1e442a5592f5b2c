#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
python train.py --epochs 6 --batch-size 20 --lr 0.05 --gpus 2 --port 29557 2>&1 | tee logs/launcher.log
