class_names = ('sphere', 'cube', 'cylinder', 'cone', 'torus', 'pyramid', 'disk', 'capsule')
model = dict(
    type='PointNetClassifier',
    backbone=dict(type='PointNet', in_channels=3, mlp_channels=(64, 64, 128, 256)),
    cls_head=dict(type='ClsHead', fc_channels=(128, 64), dropout_ratio=0.4, num_classes=8))
dataset_type = 'ShapesDataset'
data_root = 'data/synthshapes/'
train_pipeline = [
    dict(type='PointSample', num_points=256),
    dict(type='NormalizePoints'),
    dict(type='GlobalRotScaleTrans', rot_range=[-3.1416, 3.1416], scale_ratio_range=[0.9, 1.1], translation_std=[0, 0, 0]),
    dict(type='RandomJitterPoints', jitter_std=[0.01, 0.01, 0.01], clip_range=[-0.05, 0.05]),
    dict(type='Pack3DDetInputs', keys=['points'])
]
test_pipeline = [
    dict(type='PointSample', num_points=256),
    dict(type='NormalizePoints'),
    dict(type='Pack3DDetInputs', keys=['points'])
]
train_dataloader = dict(
    batch_size=2, num_workers=2, persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='train.npz', pipeline=train_pipeline,
                 metainfo=dict(classes=class_names)))
val_dataloader = dict(
    batch_size=16, num_workers=2, persistent_workers=True,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='val.npz', pipeline=test_pipeline,
                 metainfo=dict(classes=class_names), test_mode=True))
val_evaluator = dict(type='ClsMetric')
optim_wrapper = dict(type='OptimWrapper', optimizer=dict(type='Adam', lr=0.001, weight_decay=1e-4), clip_grad=None)
param_scheduler = [dict(type='CosineAnnealingLR', T_max=12, eta_min=1e-5, by_epoch=True, begin=0, end=12)]
train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=12, val_interval=1)
val_cfg = dict(type='ValLoop')
default_hooks = dict(logger=dict(type='LoggerHook', interval=20), checkpoint=dict(type='CheckpointHook', interval=5))
randomness = dict(seed=3)
