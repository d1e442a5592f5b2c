_base_ = ['../_base_/default_runtime.py']

# runtime
train_cfg = dict(max_epochs=20, val_interval=2)

# optimizer
optim_wrapper = dict(optimizer=dict(
    type='Adam',
    lr=1e-3,
))

# learning policy
param_scheduler = [
    dict(
        type='LinearLR', begin=0, end=100, start_factor=0.001,
        by_epoch=False),  # warm-up
    dict(
        type='MultiStepLR',
        begin=0,
        end=20,
        milestones=[14, 18],
        gamma=0.1,
        by_epoch=True)
]

# automatically scaling LR based on the actual training batch size
auto_scale_lr = dict(base_batch_size=32)

# hooks
default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(save_best='coco/AP', rule='greater'))

# codec settings
codec = dict(
    type='MSRAHeatmap', input_size=(32, 32), heatmap_size=(16, 16), sigma=1)

# model settings
model = dict(
    type='TopdownPoseEstimator',
    data_preprocessor=dict(
        type='PoseDataPreprocessor',
        mean=[0.],
        std=[1.],
        bgr_to_rgb=False),
    backbone=dict(
        type='TinyConv',
        in_channels=1,
        base_channels=16,
        strides=(1, 2, 1, 1),
        dilations=(1, 1, 1, 2),
        norm_cfg=dict(type='BN')),
    head=dict(
        type='HeatmapHead',
        in_channels=32,
        out_channels=3,
        deconv_out_channels=None,
        loss=dict(type='KeypointMSELoss', use_target_weight=True),
        decoder=codec),
    test_cfg=dict(
        flip_test=False,
        shift_heatmap=False,
    ))

# base dataset settings
dataset_type = 'MarkerKeypointDataset'
data_mode = 'topdown'
data_root = 'data/markers3/'

# pipelines
train_pipeline = [
    dict(type='LoadImage', color_type='grayscale'),
    dict(type='GetBBoxCenterScale'),
    dict(type='TopdownAffine', input_size=codec['input_size']),
    dict(type='GenerateTarget', encoder=codec),
    dict(type='PackPoseInputs')
]
val_pipeline = [
    dict(type='LoadImage', color_type='grayscale'),
    dict(type='GetBBoxCenterScale'),
    dict(type='TopdownAffine', input_size=codec['input_size']),
    dict(type='PackPoseInputs')
]

# data loaders
train_dataloader = dict(
    batch_size=32,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        ann_file='annotations/train.json',
        data_prefix=dict(img='train/'),
        pipeline=train_pipeline,
    ))
val_dataloader = dict(
    batch_size=32,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False, round_up=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        ann_file='annotations/val.json',
        data_prefix=dict(img='val/'),
        test_mode=True,
        pipeline=val_pipeline,
    ))
test_dataloader = val_dataloader

# evaluators
val_evaluator = [
    dict(type='CocoMetric', ann_file=data_root + 'annotations/val.json'),
    dict(type='PCKAccuracy', thr=0.05),
]
test_evaluator = val_evaluator
