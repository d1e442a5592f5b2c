dataset     = omniglot("./data", meta_split='train', ways=20, shots=1, shuffle=True)
dataloader = BatchMetaDataLoader(dataset, batch_size=16, num_workers=4)
