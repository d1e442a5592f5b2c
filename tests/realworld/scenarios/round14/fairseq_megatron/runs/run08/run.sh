#!/usr/bin/env bash
set -e

python train.py data/stories \
    --task language_modeling --arch rnn_lm --rnn-nonlinearity relu --decoder-layers 1 \
    --decoder-embed-dim 64 --decoder-hidden-size 256 --dropout 0.1 --optimizer sgd \
    --lr 0.03 --clip-norm 0.0 --tokens-per-sample 128 --max-tokens 1024 --max-epoch 5 \
    --log-interval 4 --seed 5 --save-dir checkpoints/stories_rnn --no-epoch-checkpoints \
    2>&1 | tee train.log
