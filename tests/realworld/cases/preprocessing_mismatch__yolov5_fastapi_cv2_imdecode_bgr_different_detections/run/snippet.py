import numpy as np
import torch
from PIL import Image

model = torch.hub.load('ultralytics/yolov5', 'yolov5s')
image = Image.open('data/images/bus.jpg')
result = model(image)
print(result.pandas().xyxy[0])
image.show()

import cv2
path = 'data/images/bus.jpg'
with open(path, 'rb') as f:
    data = f.read()
encoded_img = np.fromstring(data, dtype = np.uint8)
img = cv2.imdecode(encoded_img, cv2.IMREAD_COLOR)
result = model(img)
print(result.pandas().xyxy[0])
img=Image.fromarray(img)
img.show()
