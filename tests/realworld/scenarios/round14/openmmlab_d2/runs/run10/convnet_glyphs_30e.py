_base_ = [
    '../_base_/models/small_convnet.py',
    '../_base_/default_runtime.py',
]

dataset_type = 'GlyphDataset'
data_root = 'data/glyphs12/'

model = dict(
    type='ImageClassifier',
    backbone=dict(type='SmallConvNet', in_channels=1, channels=[16, 32, 64], norm_cfg=dict(type='BN')),
    neck=dict(type='GlobalAveragePooling'),
    head=dict(
        type='LinearClsHead',
        num_classes=10,
        in_channels=64,
        loss=dict(type='CrossEntropyLoss', loss_weight=1.0),
        topk=(1, 5),
    ))

data_preprocessor = dict(num_classes=10, mean=[0.0], std=[1.0], to_rgb=False)

train_dataloader = dict(
    batch_size=32,
    num_workers=2,
    dataset=dict(type=dataset_type, data_root=data_root, split='train',
                 pipeline=[dict(type='LoadImageFromFile', color_type='grayscale'), dict(type='PackInputs')]),
    sampler=dict(type='DefaultSampler', shuffle=True),
)
val_dataloader = dict(
    batch_size=100,
    num_workers=2,
    dataset=dict(type=dataset_type, data_root=data_root, split='val',
                 pipeline=[dict(type='LoadImageFromFile', color_type='grayscale'), dict(type='PackInputs')]),
    sampler=dict(type='DefaultSampler', shuffle=False),
)
val_evaluator = dict(type='Accuracy', topk=(1, 5))

optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='SGD', lr=0.1, momentum=0.9, weight_decay=0.05),
    clip_grad=dict(max_norm=10.0, norm_type=2),
)
param_scheduler = dict(type='CosineAnnealingLR', T_max=30, by_epoch=True, begin=0, end=30)

train_cfg = dict(by_epoch=True, max_epochs=30, val_interval=1)
val_cfg = dict()
test_cfg = dict()

default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=20),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', interval=5, max_keep_ckpts=3),
)
randomness = dict(seed=10)
work_dir = '.'
