optimizer.convert_to_sgd(model, 'sgd', args.lr, conf['weight_decay'],
                                     decay_type='always', decay_rate=0.5)
