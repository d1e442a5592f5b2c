# train a miniature character-level shakespeare model
# good for debugging and playing on macbooks and such

out_dir = 'out-shakespeare-char'
eval_interval = 100
eval_iters = 20
log_interval = 10

always_save_checkpoint = False

dataset = 'shakespeare_char'
gradient_accumulation_steps = 1
batch_size = 16
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 1500
lr_decay_iters = 1500
min_lr = 2e-4
beta2 = 0.99

warmup_iters = 100
