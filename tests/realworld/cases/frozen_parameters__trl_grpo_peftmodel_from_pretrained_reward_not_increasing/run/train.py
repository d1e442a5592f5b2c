dataset = load_dataset("trl-lib/tldr", split="train")

# Define the reward function, which rewards completions that are close to 20 characters
def reward_len(completions, **kwargs):
    return [-abs(20 - len(completion)) for completion in completions]

pre_trained_model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-0.5B-Instruct")
adapter_path = '/path/to/saved_adapter'
model = PeftModel.from_pretrained(pre_trained_model, adapter_path)


training_args = GRPOConfig(output_dir="Qwen2-0.5B-GRPO", logging_steps=10)
trainer = GRPOTrainer(
    model=model,
    reward_funcs=reward_len,
    args=training_args,
    train_dataset=dataset,
)
trainer.train()
