    transforms.Resize(int(368 / 1)),
    transforms.CenterCrop(368),
    transforms.ToTensor()
