#!/bin/bash
accelerate launch --config_file accelerate_config.yaml train.py --epochs 10 2>&1 | tee train.log
