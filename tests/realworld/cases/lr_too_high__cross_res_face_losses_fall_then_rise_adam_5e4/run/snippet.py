optimizer = Adam(params=sm.parameters(),
lr=args.learning_rate,weight_decay=3e-04)
# initial learning rate: 5e-4
