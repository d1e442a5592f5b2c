export DEBUG_MODE="true"
export LOG_PATH="./debug_log_2b.txt"

torchrun --nproc_per_node 2 \
    /group/30091/ssd/qigqi/R1-V/src/open-r1-multimodal/src/open_r1/grpo.py \
    --output_dir /group/30091/ssd/qigqi/model_zoo/Qwen2-VL-2B-RL \
    --model_name_or_path /model_zoo/Qwen2-VL-2B-Instruct \
    --dataset_name \/datasets/GEOQA_R1V_Train_8K \
    --deepspeed /local_scripts/zero2.json \
    --max_prompt_length 512 \
    --max_completion_length 512 \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 2 \
    --logging_steps 1 \
    --bf16 \
    --report_to tensorboard \
    --gradient_checkpointing false \
    --attn_implementation flash_attention_2 \
    --num_train_epochs 2 \
    --max_pixels 401408 \
    --run_name Qwen2-VL-2B-GEOQA_R1V_Train_8K \
    --save_steps 100 \
    --save_only_model true \
    --num_generations 1
