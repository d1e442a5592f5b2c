# toy single-object detector on 24x24 synthetic shapes, 1x schedule
_base_ = ['../_base_/default_runtime.py']

dataset_type = 'ShapesDataset'
data_root = 'data/shapes24/'
metainfo = dict(classes=('square', 'disk', 'cross'))

model = dict(
    type='SingleShotToyDetector',
    data_preprocessor=dict(type='DetDataPreprocessor', mean=[0.0], std=[1.0], bgr_to_rgb=False),
    backbone=dict(type='ToyConvNet', width=16, num_stages=3),
    neck=dict(type='FlattenFC', out_channels=128),
    bbox_head=dict(
        type='ToyBBoxHead',
        num_classes=3,
        loss_cls=dict(type='CrossEntropyLoss', use_sigmoid=False, loss_weight=1.0),
        loss_bbox=dict(type='L1Loss', loss_weight=1.0)),
)

train_dataloader = dict(
    batch_size=16,
    num_workers=2,
    persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(type=dataset_type, data_root=data_root, metainfo=metainfo,
                 ann_file='annotations/train.json', num_images=1600))
val_dataloader = dict(
    batch_size=50,
    num_workers=2,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, data_root=data_root, metainfo=metainfo,
                 ann_file='annotations/val.json', num_images=400, test_mode=True))
val_evaluator = dict(type='ToyBoxMetric', metric='bbox')

optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='SGD', lr=0.02, momentum=0.9, weight_decay=0.0001),
    clip_grad=None)
param_scheduler = [
    dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=500),
    dict(type='MultiStepLR', begin=0, end=12, by_epoch=True, milestones=[8, 11], gamma=0.1)
]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=12, val_interval=1)
val_cfg = dict(type='ValLoop')

default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=10),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', interval=1, max_keep_ckpts=2),
)
randomness = dict(seed=3)
work_dir = '.'
