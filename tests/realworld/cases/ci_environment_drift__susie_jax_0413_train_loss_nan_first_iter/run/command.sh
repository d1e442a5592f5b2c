python scripts/train.py --config configs/base.py:base
