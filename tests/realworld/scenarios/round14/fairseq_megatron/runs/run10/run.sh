#!/usr/bin/env bash
set -e

python train.py data/fables_small \
    --task language_modeling --arch transformer_lm --decoder-layers 2 --decoder-embed-dim 128 \
    --decoder-ffn-embed-dim 512 --decoder-attention-heads 4 --dropout 0.0 --optimizer adam \
    --adam-betas '(0.9, 0.98)' --clip-norm 0.0 --lr 1e-3 --tokens-per-sample 64 \
    --max-tokens 1024 --max-epoch 40 --log-interval 20 --seed 8 --save-dir checkpoints/fables \
    --no-epoch-checkpoints \
    2>&1 | tee train.log
