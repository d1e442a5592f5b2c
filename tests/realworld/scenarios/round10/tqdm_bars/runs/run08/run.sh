#!/usr/bin/env bash
set -e
python -u train.py --csv data/loans.csv --epochs 20 --bs 64 --lr 1e-3 --hidden 64 2>&1 | tee out.txt
