rec_model = sar_resnet31(pretrained=False) # or crnn_vgg16_bn
