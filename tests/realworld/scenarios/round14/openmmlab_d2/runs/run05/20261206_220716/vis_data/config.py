# glyph-12 digits, small conv net, 20 epochs
dataset_type = 'GlyphDataset'
data_root = 'data/glyphs12/'

model = dict(
    type='ImageClassifier',
    backbone=dict(type='GlyphConvNet', channels=(16, 32), fc_dim=128),
    head=dict(type='LinearClsHead', num_classes=10, in_channels=128,
              loss=dict(type='CrossEntropyLoss', loss_weight=1.0), topk=(1, 5)),
)

train_dataloader = dict(batch_size=64, num_workers=2, shuffle=True,
                        dataset=dict(type=dataset_type, data_root=data_root, split='train', num_samples=3000))
val_dataloader = dict(batch_size=250, num_workers=2, shuffle=False,
                      dataset=dict(type=dataset_type, data_root=data_root, split='val', num_samples=1000))
val_evaluator = dict(type='Accuracy', topk=(1, 5))

optimizer = dict(type='SGD', lr=0.05, momentum=0.9, weight_decay=0.0005)
optim_wrapper = dict(type='OptimWrapper', optimizer=optimizer, clip_grad=dict(max_norm=20.0))
param_scheduler = [
    dict(type='LinearLR', start_factor=0.01, by_epoch=False, begin=0, end=200),
    dict(type='CosineAnnealingLR', T_max=20, by_epoch=True, begin=0, end=20),
]
train_cfg = dict(by_epoch=True, max_epochs=20, val_interval=1)

default_hooks = dict(
    logger=dict(type='LoggerHook', interval=15),
    checkpoint=dict(type='CheckpointHook', interval=5),
)
randomness = dict(seed=5)
work_dir = '.'
