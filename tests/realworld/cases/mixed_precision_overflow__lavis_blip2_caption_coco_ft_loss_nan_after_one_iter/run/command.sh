torchrun --nproc_per_node=8  train.py --cfg-path lavis/projects/blip2/train/caption_coco_ft.yaml
