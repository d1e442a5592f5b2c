合并:
python ../Chinese-LLaMA-Alpaca/scripts/merge_llama_with_chinese_lora.py --base_model=../pyllama_data/7B_hf --lora_model=../chinese-llama-plus-lora-7b/,../chinese-alpaca-plus-lora-7b --output_type=huggingface --output_dir=merge_llama

执行推理: 
python inference_hf.py --base_model=merge_llama/ --interactive
