# sensor-event classifier, MLP on 20 tabular features
_base_ = ['../_base_/default_runtime.py']

dataset_type = 'TabularDataset'
data_root = 'data/events20/'

model = dict(
    type='ImageClassifier',
    backbone=dict(type='MLP', in_channels=20, hidden_dims=[128, 128]),
    neck=None,
    head=dict(
        type='LinearClsHead',
        num_classes=10,
        in_channels=128,
        loss=dict(type='CrossEntropyLoss', loss_weight=1.0),
        topk=(1, 5),
        cal_acc=True,
    ))

train_dataloader = dict(
    batch_size=64,
    num_workers=2,
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='meta/train_crowd.txt',
                 pipeline=[dict(type='LoadTabularRow'), dict(type='PackInputs')]),
    sampler=dict(type='DefaultSampler', shuffle=True),
)
val_dataloader = dict(
    batch_size=200,
    num_workers=2,
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='meta/val.txt',
                 pipeline=[dict(type='LoadTabularRow'), dict(type='PackInputs')]),
    sampler=dict(type='DefaultSampler', shuffle=False),
)
val_evaluator = dict(type='Accuracy', topk=(1, 5))

optim_wrapper = dict(
    optimizer=dict(type='SGD', lr=0.02, momentum=0.9, weight_decay=0.0001))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.1, by_epoch=False, begin=0, end=100),
    dict(type='MultiStepLR', by_epoch=True, milestones=[45], gamma=0.1),
]
train_cfg = dict(by_epoch=True, max_epochs=60, val_interval=2)
val_cfg = dict()
test_cfg = dict()

default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=10),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', interval=10),
)
randomness = dict(seed=11, deterministic=False)
work_dir = '.'
