out_dir = 'out-towns'
eval_interval = 100
eval_iters = 20
log_interval = 20
always_save_checkpoint = False

dataset = 'towns_char'
batch_size = 24
block_size = 32

n_layer = 2
n_head = 4
n_embd = 96
dropout = 0.0
bias = True

learning_rate = 3e-3
max_iters = 1500
lr_decay_iters = 1500
min_lr = 3e-4
beta2 = 0.99
warmup_iters = 50
weight_decay = 0.0
