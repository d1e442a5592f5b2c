# tiny stories, char level
out_dir = 'out-stories-char'
eval_interval = 125
eval_iters = 20
log_interval = 25
always_save_checkpoint = False
csv_log = True

dataset = 'stories_char'
batch_size = 16
block_size = 64

n_layer = 2
n_head = 2
n_embd = 64
dropout = 0.0

learning_rate = 2e-3
max_iters = 250
lr_decay_iters = 250
min_lr = 1e-5
beta2 = 0.99
warmup_iters = 25
