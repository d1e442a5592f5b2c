image = cv2.resize(image, (32, 32))
image = img_to_array(image)
image = image.astype('float32')
mean_image = np.mean(image, axis=0)
image -= mean_image
image /= 128.
image = np.expand_dims(image, axis=0)
