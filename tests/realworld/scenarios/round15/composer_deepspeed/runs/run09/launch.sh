#!/bin/bash
accelerate launch --config_file accelerate_config.yaml train.py --config hparams.yaml > train.log 2>&1
