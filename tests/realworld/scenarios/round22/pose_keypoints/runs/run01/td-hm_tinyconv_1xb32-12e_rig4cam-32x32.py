_base_ = ['mmpose::_base_/default_runtime.py']

# runtime
train_cfg = dict(max_epochs=12, val_interval=1)

# optimizer
optim_wrapper = dict(optimizer=dict(type='AdamW', lr=2e-3, weight_decay=1e-4))

# learning policy
param_scheduler = [
    dict(type='CosineAnnealingLR', T_max=12, eta_min=0., begin=0, end=12, by_epoch=True, convert_to_iter_based=False)
]

auto_scale_lr = dict(base_batch_size=32)

default_hooks = dict(
    logger=dict(type='LoggerHook', interval=5),
    checkpoint=dict(save_best='coco/AP', rule='greater', max_keep_ckpts=2))

codec = dict(type='MSRAHeatmap', input_size=(32, 32), heatmap_size=(16, 16), sigma=1)

model = dict(
    type='TopdownPoseEstimator',
    data_preprocessor=dict(type='PoseDataPreprocessor', mean=[0.], std=[1.], bgr_to_rgb=False),
    backbone=dict(type='TinyConv', in_channels=1, base_channels=16, strides=(1, 2, 1, 1), dilations=(1, 1, 1, 2)),
    head=dict(
        type='HeatmapHead',
        in_channels=32,
        out_channels=4,
        deconv_out_channels=None,
        loss=dict(type='KeypointMSELoss', use_target_weight=True),
        decoder=codec),
    test_cfg=dict(flip_test=False))

dataset_type = 'CocoDataset'
data_mode = 'topdown'
data_root = 'data/rig4cam/'

# the four capture sessions (cam0..cam3) are exported into one annotation file, session by session
metainfo = dict(from_file='configs/_base_/datasets/rig4cam.py')

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

train_dataloader = dict(
    batch_size=32,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        metainfo=metainfo,
        ann_file='annotations/rig4cam_train.json',
        data_prefix=dict(img='images/'),
        pipeline=train_pipeline,
    ))
val_dataloader = dict(
    batch_size=32,
    num_workers=4,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False, round_up=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        data_mode=data_mode,
        metainfo=metainfo,
        ann_file='annotations/rig4cam_val.json',
        data_prefix=dict(img='images/'),
        test_mode=True,
        pipeline=val_pipeline,
    ))
test_dataloader = val_dataloader

val_evaluator = [
    dict(type='CocoMetric', ann_file=data_root + 'annotations/rig4cam_val.json'),
    dict(type='PCKAccuracy', thr=0.05),
]
test_evaluator = val_evaluator
