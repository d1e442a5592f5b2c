# tiny char-level model on the story corpus
out_dir = 'out-stories-char'
eval_interval = 50
eval_iters = 10
log_interval = 10

dataset = 'stories_char'
batch_size = 16
block_size = 64

n_layer = 2
n_head = 4
n_embd = 64
dropout = 0.0
bias = True

learning_rate = 1e-3
max_iters = 400
weight_decay = 1e-1
beta1 = 0.9
beta2 = 0.99
grad_clip = 0.0
warmup_iters = 20
lr_decay_iters = 400
min_lr = 1e-4
seed = 1337
