from tf_unet import unet
import cv2
import numpy as np

test_images = []

net = unet.Unet(channels=3, n_class=2, layers=3, features_root=64)

filelist = ['ISIC_0000000.jpg']

test_images = np.array([cv2.imread(fname, 1) for fname in filelist])

prediction = net.predict("/home/me/Desktop/tf_unet/results/model.ckpt", test_images)

output = prediction[0, :, :, 1] * 1000
# Times 1000 because it is hardly visible otherwise

cv2.imwrite("prediction.jpg", output)
