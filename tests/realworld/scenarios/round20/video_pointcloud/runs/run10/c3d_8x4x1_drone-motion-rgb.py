model = dict(
    type='Recognizer3D',
    backbone=dict(type='C3DLite', in_channels=3, base_channels=16, num_stages=3),
    cls_head=dict(type='I3DHead', in_channels=64, num_classes=10, dropout_ratio=0.5, average_clips='prob'),
    data_preprocessor=dict(type='ActionDataPreprocessor', mean=[114.0, 114.0, 114.0], std=[58.0, 58.0, 58.0], format_shape='NCTHW'))

dataset_type = 'RawframeDataset'
data_root = 'data/drone_motion/rawframes'
data_root_val = 'data/drone_motion/rawframes'
ann_file_train = 'data/drone_motion/drone_motion_train_list_rawframes.txt'
ann_file_val = 'data/drone_motion/drone_motion_val_list_rawframes.txt'

train_pipeline = [
    dict(type='SampleFrames', clip_len=8, frame_interval=4, num_clips=1),
    dict(type='RawFrameDecode'),
    dict(type='Resize', scale=(-1, 32)),
    dict(type='FormatShape', input_format='NCTHW'),
    dict(type='PackActionInputs')
]
val_pipeline = [
    dict(type='SampleFrames', clip_len=8, frame_interval=1, num_clips=1, test_mode=True),
    dict(type='RawFrameDecode'),
    dict(type='Resize', scale=(-1, 32)),
    dict(type='FormatShape', input_format='NCTHW'),
    dict(type='PackActionInputs')
]
test_pipeline = val_pipeline

train_dataloader = dict(
    batch_size=16,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(type=dataset_type, ann_file=ann_file_train, data_prefix=dict(img=data_root), pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=16,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, ann_file=ann_file_val, data_prefix=dict(img=data_root_val), pipeline=val_pipeline, test_mode=True))
val_evaluator = dict(type='AccMetric')

train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=10, val_begin=1, val_interval=1)
val_cfg = dict(type='ValLoop')

optim_wrapper = dict(
    optimizer=dict(type='SGD', lr=0.05, momentum=0.9, weight_decay=1e-4),
    clip_grad=dict(max_norm=40, norm_type=2))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.1, by_epoch=True, begin=0, end=1, convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=10, eta_min=0, by_epoch=True, begin=0, end=10)]

default_hooks = dict(
    runtime_info=dict(type='RuntimeInfoHook'),
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=5, ignore_last=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', interval=1, save_best='auto', max_keep_ckpts=2),
    sampler_seed=dict(type='DistSamplerSeedHook'))
log_processor = dict(type='LogProcessor', window_size=5, by_epoch=True)
load_from = None
resume = False
randomness = dict(seed=1, deterministic=False)
