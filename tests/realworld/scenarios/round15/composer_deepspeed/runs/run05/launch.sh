#!/bin/bash
accelerate launch --config_file accelerate_config.yaml train.py --data_dir data/patches --epochs 3 --batch_size 64 2>&1 | tee stdout.txt
