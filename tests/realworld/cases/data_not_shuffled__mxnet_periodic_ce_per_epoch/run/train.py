train_iter = mx.io.ImageRecordIter(
	path_imgrec=recpath,
	data_shape=datashape,
	batch_size=batchsize,
	rand_crop=True,
	rand_mirror=True)


opt = mx.optimizer.SGD(
	momentum=0.9,
	rescale_grad=1.0/batchsize,
	learning_rate=base_lr,
	wd=weight_decay
	)
...
metric = mx.metric.create('ce')

for epoch in range(loadEpoch + 1,maxEpoch):
	train_iter.reset()
	for i,databatch in enumerate(train_iter):
		step += 1
		mod.forward(databatch,is_train=True)
		mod.update_metric(metric,databatch.label)
		if(step % display == 0):
			t = '[' + time.asctime( time.localtime(time.time())) + ']'
			info = t + 'epoch['+str(epoch)+']' + ',iter['+str(step)+'] '+'loss: ' + str(metric.get()[1])
			print info
			log.write(info + '\n')
			log.flush()
			metric.reset()
