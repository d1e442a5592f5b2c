python -m torch.distributed.launch --nproc_per_node=4 --use_env main.py --hidden_dim=256
python -m torch.distributed.launch --nproc_per_node=4 --use_env main.py --hidden_dim=512
