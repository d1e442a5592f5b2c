python -m torch.distributed.launch \
--nproc_per_node=8 --use_env main.py \
--num_workers 32 \
--model deit_tiny_patch16_224 \
--batch-size 128 \
--repeated-aug \
--data-path /data/lizhexin/public-datasets-contrib/ILSVRC2012/original \
--output_dir ./result
