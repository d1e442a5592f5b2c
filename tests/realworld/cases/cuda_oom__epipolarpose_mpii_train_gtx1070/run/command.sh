python scripts/train.py --cfg experiments/mpii/train.yaml
