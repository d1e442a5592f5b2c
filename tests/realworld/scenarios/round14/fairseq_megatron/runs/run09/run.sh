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
    --train-iters 400 \
    --lr 1e-3 \
    --min-lr 0.0 \
    --lr-decay-style cosine \
    --lr-warmup-iters 20 \
    --weight-decay 0.01 \
    --adam-beta1 0.9 \
    --adam-beta2 0.999 \
    --adam-eps 1e-1 \
    --clip-grad 1.0 \
    --seed 4321
"

DATA_ARGS="
    --data-path data/stories_text_document \
    --split 949,50,1 \
    --tokenizer-type SentencePieceTokenizer \
    --tokenizer-model tokenizer/char.model
"

OUTPUT_ARGS="
    --log-interval 20 \
    --eval-interval 100 \
    --eval-iters 10
"

torchrun --nproc_per_node $GPUS_PER_NODE pretrain_gpt.py \
    $GPT_ARGS \
    $DATA_ARGS \
    $OUTPUT_ARGS \
    --distributed-backend nccl \
    2>&1 | tee -a train.log
