MODEL_NAME=THUDM/chatglm2-6b
TEMPLATE=chatglm2

CUDA_VISIBLE_DEVICES=0 python \
src/evaluate.py \
--no_do_sample \
--model_name_or_path $MODEL_NAME \
--template $TEMPLATE \
--finetuning_type lora \
--task ceval \
--split validation \
