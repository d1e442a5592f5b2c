CUDA_VISIBLE_DEVICES=0 python3 ./src/evaluate.py \
    --model_name_or_path $MODEL_PATH \
    --template default \
    --task mmlu \
    --split test \
    --lang en \
    --n_shot 5 \
    --batch_size 1
