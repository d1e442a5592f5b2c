#!/usr/bin/env bash
set -e

TEXT=data/stories
fairseq-preprocess --only-source --trainpref $TEXT/train.tokens --validpref $TEXT/valid.tokens \
    --destdir data-bin/stories --workers 4

fairseq-train data-bin/stories \
    --task language_modeling --arch lstm_lm --decoder-layers 2 --decoder-embed-dim 128 \
    --decoder-hidden-size 256 --dropout 0.1 --criterion label_smoothed_cross_entropy \
    --label-smoothing 0.1 --optimizer adam --adam-betas '(0.9, 0.98)' --clip-norm 1.0 \
    --lr 1e-5 --lr-scheduler fixed --tokens-per-sample 64 --max-tokens 1024 \
    --max-epoch 6 --log-interval 50 --seed 11 --save-dir checkpoints/stories_lstm \
    --no-epoch-checkpoints \
    2>&1 | tee train.log
