# glyph digits from the hand-labelled subset; wider conv net
dataset_type = 'GlyphDataset'
data_root = 'data/glyphs12_handlabelled/'

model = dict(
    type='ImageClassifier',
    backbone=dict(type='GlyphConvNet', channels=(32, 64), fc_dim=256),
    head=dict(type='LinearClsHead', num_classes=10, in_channels=256,
              loss=dict(type='CrossEntropyLoss', loss_weight=1.0), topk=(1,)),
)

train_dataloader = dict(batch_size=32, num_workers=2, shuffle=True,
                        dataset=dict(type=dataset_type, data_root=data_root, split='train', num_samples=500))
val_dataloader = dict(batch_size=250, num_workers=2, shuffle=False,
                      dataset=dict(type=dataset_type, data_root=data_root, split='val', num_samples=1000))
val_evaluator = [dict(type='Accuracy', topk=(1,)), dict(type='ValLoss')]

optimizer = dict(type='Adam', lr=0.001, betas=(0.9, 0.999), weight_decay=0.0)
optim_wrapper = dict(type='OptimWrapper', optimizer=optimizer)
param_scheduler = []
train_cfg = dict(by_epoch=True, max_epochs=80, val_interval=2)

default_hooks = dict(
    logger=dict(type='LoggerHook', interval=10),
    checkpoint=dict(type='CheckpointHook', interval=20),
)
randomness = dict(seed=7)
work_dir = '.'
