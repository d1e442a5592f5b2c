# tabular regression baseline (10 process features -> yield)
default_scope = 'mmengine'

dataset_type = 'ProcessYieldDataset'
data_root = 'data/process_yield/'

model = dict(
    type='TabularRegressor',
    backbone=dict(type='MLP', in_channels=10, hidden_dims=[64, 64], act_cfg=dict(type='ReLU')),
    head=dict(type='RegressionHead', in_channels=64, out_channels=1, loss=dict(type='MSELoss', loss_weight=1.0)),
)

train_dataloader = dict(
    batch_size=32,
    num_workers=0,
    persistent_workers=False,
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='train.csv', standardize=True),
    sampler=dict(type='DefaultSampler', shuffle=True),
)
val_dataloader = dict(
    batch_size=250,
    num_workers=0,
    dataset=dict(type=dataset_type, data_root=data_root, ann_file='val.csv', standardize=True),
    sampler=dict(type='DefaultSampler', shuffle=False),
)
val_evaluator = [dict(type='MAE'), dict(type='RMSE'), dict(type='R2Score')]

optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='Adam', lr=1e-05, betas=(0.9, 0.999), weight_decay=0),
)
param_scheduler = []

train_cfg = dict(type='EpochBasedTrainLoop', max_epochs=40, val_interval=1)
val_cfg = dict(type='ValLoop')

default_hooks = dict(
    timer=dict(type='IterTimerHook'),
    logger=dict(type='LoggerHook', interval=25),
    param_scheduler=dict(type='ParamSchedulerHook'),
    checkpoint=dict(type='CheckpointHook', interval=10, save_best='rmse', rule='less'),
)
log_processor = dict(by_epoch=True, window_size=25)
randomness = dict(seed=12)
work_dir = '.'
