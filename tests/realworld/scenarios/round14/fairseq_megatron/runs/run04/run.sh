#!/usr/bin/env bash
set -e

TEXT=data/tales
head -n 70 $TEXT/tales.all.tokens > $TEXT/valid.tokens
tail -n +1 $TEXT/tales.all.tokens > $TEXT/train.tokens
fairseq-preprocess --only-source --trainpref $TEXT/train.tokens --validpref $TEXT/valid.tokens \
    --destdir data-bin/tales --workers 4

fairseq-train data-bin/tales \
    --task language_modeling --arch transformer_lm --decoder-layers 2 --decoder-embed-dim 128 \
    --decoder-ffn-embed-dim 512 --decoder-attention-heads 4 --dropout 0.1 --optimizer adam \
    --adam-betas '(0.9, 0.98)' --clip-norm 0.0 --lr 2e-3 --lr-scheduler inverse_sqrt \
    --warmup-updates 50 --tokens-per-sample 64 --max-tokens 1024 --max-epoch 30 \
    --log-interval 50 --seed 3 --save-dir checkpoints/tales --no-epoch-checkpoints \
    2>&1 | tee train.log
