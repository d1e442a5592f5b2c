#!/bin/bash
# GRU baseline on the sequence task
python -u train.py --epochs 25 --batch-size 32 --lr 0.008 --momentum 0.9 --hidden 32 --clip 1.0 2>&1 | tee out.txt
