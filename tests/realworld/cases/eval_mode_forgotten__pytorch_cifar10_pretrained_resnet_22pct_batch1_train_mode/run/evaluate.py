model = cifar10_models.resnet50(pretrained=True)

mean = np.array([0.4914, 0.4822, 0.4465])
std = np.array([0.2023, 0.1994, 0.2010])

self.normalize = transforms.Normalize(mean=mean, std=std)

self.train_loader = DataLoader(
            datasets.ImageFolder(training_dir, transform=transforms.Compose([
                transforms.RandomCrop(32, padding=4),
                transforms.RandomHorizontalFlip(),
                transforms.ToTensor(),
                self.normalize,
            ])),
            batch_size=1, shuffle=True,
            num_workers=0, pin_memory=True)
       
