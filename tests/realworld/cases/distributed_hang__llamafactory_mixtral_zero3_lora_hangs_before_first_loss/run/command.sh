#export CUDA_VISIBLE_DEVICES='0,1,2,3,4,5'

output_dir=output
if [ ! -d ${output_dir} ];then
    mkdir -p ${output_dir}
fi
#cp train_sft.sh ${output_dir}
#export USE_MODELSCOPE_HUB=1
torchrun --nnodes 1 --nproc_per_node 8 --master_port 12088 src/train_bash.py  \
    --stage sft \
    --deepspeed ds_zero3_offload.json \
    --cutoff_len 4096 \
    --template mistral \
    --model_name_or_path /mnt/data/Top/mistralai_Mixtral-8x7B-Instruct-v0.1 \
    --do_train \
    --dataset self_cognition \
    --dataset_dir data \
    --finetuning_type lora \
    --lora_target q_proj,v_proj \
    --output_dir ${output_dir} \
    --overwrite_cache \
    --overwrite_output_dir \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 1 \
    --lr_scheduler_type cosine \
    --logging_steps 1 \
    --save_steps 500 \
    --learning_rate 5e-5 \
    --num_train_epochs 1.0 \
    --ddp_find_unused_parameters False \
    --plot_loss \
    --fp16 \
    | tee -a ${output_dir}/train.log
