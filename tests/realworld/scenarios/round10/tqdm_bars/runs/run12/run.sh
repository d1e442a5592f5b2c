#!/bin/bash
python -u train.py --epochs 40 --batch-size 16 --lr 0.05 --momentum 0.9 --step-size 20 --gamma 0.5 2>&1 | tee out.txt
