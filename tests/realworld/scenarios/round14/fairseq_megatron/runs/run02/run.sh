#!/usr/bin/env bash
set -e

python train.py data/stories \
    --task language_modeling --arch transformer_lm --decoder-layers 2 --decoder-embed-dim 64 \
    --decoder-ffn-embed-dim 256 --decoder-attention-heads 4 --share-decoder-input-output-embed \
    --dropout 0.1 --optimizer adam --adam-betas '(0.9, 0.98)' --weight-decay 0.01 \
    --clip-norm 0.0 --lr 1e-3 --lr-scheduler inverse_sqrt --warmup-updates 100 \
    --tokens-per-sample 64 --sample-break-mode none --max-tokens 1024 --max-epoch 7 \
    --log-format simple --log-interval 25 --seed 1 --save-dir checkpoints/stories_tlm \
    --no-epoch-checkpoints \
    2>&1 | tee train.log
