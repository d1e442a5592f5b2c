torchrun --standalone --nproc_per_node 4 train.py 2>&1 | tee train.log
