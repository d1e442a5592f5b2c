model = dict(
    type='Recognizer3D',
    backbone=dict(type='C3DLite', in_channels=3, base_channels=16, num_stages=3),
    cls_head=dict(type='I3DHead', in_channels=64, num_classes=10, dropout_ratio=0.5, average_clips='prob'),
    data_preprocessor=dict(type='ActionDataPreprocessor', mean=[114.0, 114.0, 114.0], std=[58.0, 58.0, 58.0], format_shape='NCTHW'))

dataset_type = 'VideoDataset'
data_root = 'data/warehouse_actions/videos_full'
ann_file_train = 'data/warehouse_actions/train_list_videos.txt'
ann_file_val = 'data/warehouse_actions/val_list_videos.txt'

train_pipeline = [
    dict(type='DecordInit'),
    dict(type='SampleFrames', clip_len=8, frame_interval=4, num_clips=1),
    dict(type='DecordDecode'),
    dict(type='Resize', scale=(-1, 32)),
    dict(type='FormatShape', input_format='NCTHW'),
    dict(type='PackActionInputs')
]
val_pipeline = [
    dict(type='DecordInit'),
    dict(type='SampleFrames', clip_len=8, frame_interval=4, num_clips=1, test_mode=True),
    dict(type='DecordDecode'),
    dict(type='Resize', scale=(-1, 32)),
    dict(type='FormatShape', input_format='NCTHW'),
    dict(type='PackActionInputs')
]
train_dataloader = dict(
    batch_size=8,
    num_workers=0,
    persistent_workers=False,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(type=dataset_type, ann_file=ann_file_train, data_prefix=dict(video=data_root), pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=8,
    num_workers=0,
    persistent_workers=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, ann_file=ann_file_val, data_prefix=dict(video=data_root), pipeline=val_pipeline, test_mode=True))
val_evaluator = dict(type='AccMetric')

train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=6, val_begin=1, val_interval=1)
val_cfg = dict(type='ValLoop')

optim_wrapper = dict(
    optimizer=dict(type='SGD', lr=0.02, momentum=0.9, weight_decay=1e-4),
    clip_grad=dict(max_norm=40, norm_type=2))
param_scheduler = [dict(type='MultiStepLR', begin=0, end=6, by_epoch=True, milestones=[4], gamma=0.1)]

default_hooks = dict(
    runtime_info=dict(type='RuntimeInfoHook'),
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=5, ignore_last=False),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', interval=1, save_best='auto'),
    sampler_seed=dict(type='DistSamplerSeedHook'))
log_processor = dict(type='LogProcessor', window_size=5, by_epoch=True)
randomness = dict(seed=0, deterministic=False)
