# machine-state classifier: 4 states from 16 sensor channels
dataset_type = 'SensorTableDataset'
data_root = 'data/plant_sensors/'

model = dict(
    type='TabularClassifier',
    backbone=dict(type='MLP', in_channels=16, hidden_dims=[128, 64], dropout=0.1),
    head=dict(type='LinearClsHead', num_classes=4, in_channels=64,
              loss=dict(type='CrossEntropyLoss', loss_weight=1.0), topk=(1,)),
)

train_dataloader = dict(
    batch_size=128,
    num_workers=0,
    dataset=dict(type=dataset_type, data_root=data_root,
                 feature_file='features.parquet', label_file='labels.parquet', split='train'),
    sampler=dict(type='DefaultSampler', shuffle=True),
)
val_dataloader = dict(
    batch_size=500,
    num_workers=0,
    dataset=dict(type=dataset_type, data_root=data_root,
                 feature_file='features.parquet', label_file='labels.parquet', split='val'),
    sampler=dict(type='DefaultSampler', shuffle=False),
)
val_evaluator = [dict(type='Accuracy', topk=(1,)), dict(type='SingleLabelMetric', items=('precision', 'recall', 'f1-score'))]

optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=0.002, betas=(0.9, 0.999), weight_decay=0.01),
    clip_grad=dict(max_norm=5.0, norm_type=2),
)
param_scheduler = [
    dict(type='LinearLR', start_factor=0.1, by_epoch=True, begin=0, end=3, convert_to_iter_based=True),
    dict(type='CosineAnnealingLR', T_max=37, by_epoch=True, begin=3, end=40),
]
train_cfg = dict(by_epoch=True, max_epochs=40, val_interval=1)

default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='CheckpointHook', interval=10, save_best='accuracy/top1'),
)
randomness = dict(seed=21)
work_dir = '.'
