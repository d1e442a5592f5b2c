elif self._config['IMAGE_C'] == 3:
    image = cv2.imread(image_name)
...
image = cv2.resize(image, (self._config['IMAGE_W'], self._config['IMAGE_H']))
image = image[..., ::-1]
... and later in getitem ...
if self._norm is not None:
    x_batch[instance_count] = self._norm(img) (which is also done on predict)
