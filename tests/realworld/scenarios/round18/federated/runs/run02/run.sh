#!/usr/bin/env bash
set -e
python train.py \
  --num-clients 20 \
  --fraction-fit 0.25 \
  --rounds 60 \
  --local-epochs 1 \
  --batch-size 32 \
  --lr 0.05 \
  --alpha 0.3 \
  --seed 1 2>&1 | tee run.log
