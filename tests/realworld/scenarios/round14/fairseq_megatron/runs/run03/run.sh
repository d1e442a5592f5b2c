#!/bin/bash

export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=1

GPT_ARGS="
    --num-layers 2 \
    --hidden-size 64 \
    --num-attention-heads 2 \
    --seq-length 64 \
    --max-position-embeddings 64 \
    --micro-batch-size 8 \
    --global-batch-size 16 \
    --train-iters 500 \
    --lr 2.5e-3 \
    --lr-decay-style constant \
    --lr-warmup-iters 20 \
    --weight-decay 0.01 \
    --clip-grad 1.0 \
    --fp16 \
    --seed 2024
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

torchrun --nproc_per_node $GPUS_PER_NODE pretrain_gpt.py \
    $GPT_ARGS \
    $DATA_ARGS \
    $OUTPUT_ARGS \
    --distributed-backend nccl \
    2>&1 | tee -a train.log
