#!/bin/bash

export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=1

GPT_ARGS="
    --num-layers 2 \
    --hidden-size 64 \
    --num-attention-heads 4 \
    --seq-length 64 \
    --max-position-embeddings 64 \
    --micro-batch-size 4 \
    --global-batch-size 32 \
    --train-iters 400 \
    --lr 1e-3 \
    --min-lr 1e-5 \
    --lr-decay-style cosine \
    --lr-warmup-iters 40 \
    --weight-decay 0.01 \
    --adam-beta1 0.9 \
    --adam-beta2 0.999 \
    --clip-grad 1.0 \
    --attention-dropout 0.1 \
    --hidden-dropout 0.1 \
    --seed 1234
"

DATA_ARGS="
    --data-path data/stories_text_document \
    --split 949,50,1 \
    --tokenizer-type SentencePieceTokenizer \
    --tokenizer-model tokenizer/char.model
"

OUTPUT_ARGS="
    --log-interval 10 \
    --eval-interval 100 \
    --eval-iters 10
"

torchrun --nproc_per_node $GPUS_PER_NODE train.py \
    $GPT_ARGS \
    $DATA_ARGS \
    $OUTPUT_ARGS \
    --distributed-backend nccl \
    2>&1 | tee -a train.log
