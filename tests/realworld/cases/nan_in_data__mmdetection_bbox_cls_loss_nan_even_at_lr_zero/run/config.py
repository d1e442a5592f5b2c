# schedule_1x.py (added while debugging)
optimizer_config = dict(grad_clip=dict(max_norm=35, norm_type=2))
