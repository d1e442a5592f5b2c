import logging
import os
import shutil
import tempfile
import datasets
import torch
import torch.distributed
import transformers

output = 'test'
os.makedirs(output, exist_ok=True)
local_output = tempfile.mkdtemp()
training_args = transformers.TrainingArguments(
    local_output, 
    per_device_train_batch_size=1, 
    save_steps=2, 
    max_steps=3, 
    deepspeed={'zero_optimization': {'stage': 3}, 'train_micro_batch_size_per_gpu': 'auto'}, 
    report_to=[])
if training_args.local_rank <= 0:
  logging.basicConfig(level=logging.INFO, format='%(levelname)-8s | %(message)s')
  # Copy from remote (eg. cloud storage) to local. Here we use two local dirs as an example.
  shutil.copytree(output, local_output, dirs_exist_ok=True)
if torch.distributed.is_initialized():
  torch.distributed.barrier()

last_checkpoint = transformers.trainer_utils.get_last_checkpoint(local_output)
dataset = {'input_ids': torch.tensor([[0]]), 'labels': torch.tensor([[0]]), 'attention_mask': torch.tensor([[1]])}
train_dataset = datasets.Dataset.from_dict(dataset)
model = transformers.AutoModelForCausalLM.from_pretrained('TinyLlama/TinyLlama-1.1B-Chat-v0.6')
trainer = transformers.Trainer(args=training_args, model=model, train_data
[...]
