fp16 = dict(loss_scale='dynamic')
