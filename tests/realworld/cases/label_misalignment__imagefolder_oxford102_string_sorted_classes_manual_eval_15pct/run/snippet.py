for images, labels in dataloaders[phase]: 
    print(labels)
    imshow(torchvision.utils.make_grid(images))  # method [here](https://pytorch.org/tutorials/beginner/blitz/cifar10_tutorial.html)
