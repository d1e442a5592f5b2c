image = cv2.imread(image_path)
boxes = yolo.predict(image)
... and in frontend ...
image = cv2.resize(image, (self._input_size[1], self._input_size[0]))
image = self._feature_extractor.normalize(image)
