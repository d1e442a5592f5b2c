out_dir = 'out-shakespeare-char-accum'
eval_interval = 100
eval_iters = 20
log_interval = 10
always_save_checkpoint = False

dataset = 'shakespeare_char'
gradient_accumulation_steps = 4
batch_size = 8
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 500
lr_decay_iters = 500
min_lr = 2e-4
beta2 = 0.99
warmup_iters = 50
grad_clip = 0.0
