torchrun --nnodes 2 --nproc_per_node 4 --node_rank $NODE_RANK --master_addr gpu-a01 --tee 3 train.py --config cfg/llm.yaml 2>&1 | tee node$NODE_RANK.log
