python finetune/lora.py  --data_dir data/mydata/   --precision "bf16-true" --quantize "bnb.nf4-dq" --checkpoint_dir /AIDEV/llm/vicuna-7b-v1.5 --out_dir /AIDEV/llm/out/lora/vicuna
