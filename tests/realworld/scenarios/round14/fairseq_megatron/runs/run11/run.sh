#!/bin/bash

export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=1

GPT_ARGS="
    --num-layers 2 \
    --hidden-size 64 \
    --num-attention-heads 4 \
    --seq-length 64 \
    --max-position-embeddings 64 \
    --micro-batch-size 8 \
    --global-batch-size 16 \
    --train-iters 600 \
    --lr 3e-3 \
    --min-lr 1e-4 \
    --lr-decay-style cosine \
    --lr-warmup-iters 20 \
    --weight-decay 0.01 \
    --clip-grad 1.0 \
    --seed 31
"

DATA_ARGS="
    --data-path data/stories_text_document \
    --split 949,50,1 \
    --tokenizer-type SentencePieceTokenizer \
    --tokenizer-model tokenizer/char.model
"

OUTPUT_ARGS="
    --log-interval 10 \
    --eval-interval 50 \
    --eval-iters 10 \
    --save checkpoints/gpt-char \
    --load checkpoints/gpt-char \
    --save-interval 150 \
    --exit-interval 450
"

torchrun --nproc_per_node $GPUS_PER_NODE train.py \
    $GPT_ARGS \
    $DATA_ARGS \
    $OUTPUT_ARGS \
    --distributed-backend nccl \
    2>&1 | tee -a train.log
