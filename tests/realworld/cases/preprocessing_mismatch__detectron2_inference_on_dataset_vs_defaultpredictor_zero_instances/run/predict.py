predictor = DefaultPredictor(cfg)
im = cv2.imread(PathToSameImage)
output = predictor(im)
