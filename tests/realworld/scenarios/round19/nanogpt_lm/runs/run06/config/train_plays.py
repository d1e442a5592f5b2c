out_dir = 'out-plays'
eval_interval = 50
eval_iters = 20
log_interval = 5
always_save_checkpoint = True
csv_log = True

dataset = 'plays_char'
batch_size = 16
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 800
lr_decay_iters = 800
min_lr = 1e-4
beta2 = 0.99
warmup_iters = 0
