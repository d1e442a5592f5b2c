out_dir = 'out-stories'
eval_interval = 100
eval_iters = 20
log_interval = 20
always_save_checkpoint = False

dataset = 'stories_char'
batch_size = 12
block_size = 64

n_layer = 2
n_head = 4
n_embd = 96
dropout = 0.1

learning_rate = 1e-3
max_iters = 1000
lr_decay_iters = 1000
min_lr = 1e-4
beta2 = 0.99
warmup_iters = 50
