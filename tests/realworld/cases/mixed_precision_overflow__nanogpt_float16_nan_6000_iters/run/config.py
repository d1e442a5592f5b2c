# in train_gpt2.py
batch_size = 20
block_size = 512
gradient_accumulation_steps = 5
learning_rate = 1e-5
min_lr = learning_rate / 10

# in train.py
dtype = 'float16'
