python3 tools/train.py configs/scannetv2/isbnet_scannetv2.yaml --trainall --exp_name default
