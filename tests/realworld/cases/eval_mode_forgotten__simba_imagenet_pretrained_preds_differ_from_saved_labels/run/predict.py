model = getattr(models, args.model)(pretrained=True).cuda()
batchfile = '%s/images_%s_%d.pth' % (args.sampled_image_dir, args.model, args.num_runs)
checkpoint = torch.load(batchfile)
images = checkpoint['images']
labels = checkpoint['labels']

preds, _ = utils.get_preds(model, images[args.image_idx].unsqueeze(0), 'imagenet', batch_size=args.batch_size)
print(preds)
print(labels[args.image_idx])
