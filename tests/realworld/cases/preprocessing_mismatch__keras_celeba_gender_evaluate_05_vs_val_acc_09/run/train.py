valid_datagen=ImageDataGenerator(preprocessing_function=preprocess_input,
    rescale=1./255)
[...]
pic = cv2.resize(pic, (HEIGHT,WIDTH))
