batch_size = 1
basenet = '.../vgg16_reducedfc.pth'

# using trained model also got loss = nan
# resume = '.../ssd300_mAP_77.43_v2.pth'
