import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

model = AutoModelForCausalLM.from_pretrained("bigscience/bloom-1b1", local_files_only=True, trust_remote_code=True, load_in_8bit=True)
model.config.use_cache = False

config = LoraConfig(
        r=8, 
        lora_alpha=32, 
        target_modules=["query_key_value"], 
        lora_dropout=0.05, 
        bias="none", 
        task_type="CAUSAL_LM"
    )
model = prepare_model_for_kbit_training(model)
# model = get_peft_model(model, config)
model = get_peft_model(model, config, adapter_name="abc") # bug
model.print_trainable_parameters()
