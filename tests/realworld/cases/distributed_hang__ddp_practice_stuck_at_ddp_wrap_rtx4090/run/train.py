model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])  ### 套 DDP
