model = torch.nn.Sequential(
            OrderedDict(
                [
                    ('conv1', torch.nn.Conv2d(3, 20, 3)),
                    ('relu1', torch.nn.ReLU()),
                    ('conv2', torch.nn.Conv2d(20, 64, 3)),
                    ('relu2', torch.nn.ReLU()),
                ]
            )
        )

base_lr = 0.001

epoch_start = 0
epoch_stop = 45
epoch_end = 100

optimizer = torch.optim.Adam(model.parameters(), lr=base_lr)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epoch_end, last_epoch=epoch_start-1)

# run 45 epochs and save learning rate values
lr_values = []
for i in range(epoch_start, epoch_stop):
    lr = scheduler.get_last_lr()[0]
    lr_values.append(lr)
[...]
