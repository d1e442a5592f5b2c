model.eval()
for batch_idx, data in enumerate(tqdm(data_loader)):
    image = data[0].to('cuda:0')
    ......
