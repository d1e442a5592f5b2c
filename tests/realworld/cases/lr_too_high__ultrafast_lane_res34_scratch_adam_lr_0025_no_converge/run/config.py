optimizer = 'Adam'  #['SGD','Adam']
learning_rate = 0.025
weight_decay = 1e-4
momentum = 0.9

scheduler = 'multi' #['multi', 'cos']
steps = [25, 50, 75, 100]
gamma  = 0.1
warmup = 'linear'
warmup_iters = 695
