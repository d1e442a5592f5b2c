torchrun --nproc_per_node=2 ddp_main_torchrun.py
