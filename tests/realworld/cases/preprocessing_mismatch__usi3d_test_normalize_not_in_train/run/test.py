transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))
