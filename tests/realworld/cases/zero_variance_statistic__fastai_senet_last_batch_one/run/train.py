data = ImageDataBunch.create(train_ds, val_ds, test_ds=test_ds, path=path, bs=bs, tfms=(tfms, []),  num_workers=8, size=512).normalize(kk)
learn = create_cnn(
    data,
    senet154,
    ps=0.5,
    cut=-2,
    path=path,    
    metrics=[acc]
)
learn.model = nn.DataParallel(learn.model)
learn.callback_fns.append(partial(SaveModel, every='improvement', monitor='val_loss'))
learn.fit_one_cycle(5, lrs) 
