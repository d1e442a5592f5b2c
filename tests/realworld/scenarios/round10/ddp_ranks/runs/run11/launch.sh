#!/usr/bin/env bash
set -euo pipefail
mkdir -p logs
python train.py --epochs 25 --bs 50 --lr 0.005 --world-size 2 --port 29566 2>&1 | tee logs/launcher.log
