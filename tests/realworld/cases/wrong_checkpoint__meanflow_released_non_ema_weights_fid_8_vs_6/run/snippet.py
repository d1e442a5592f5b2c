state_dict = torch.load(args.ckpt)['ema']
