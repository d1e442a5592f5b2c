    input_ = keras.layers.Input((3, None, None)) if K.image_data_format() == 'channels_first' else 
    keras.layers.Input((None, None, 3))
    rn = keras_resnet.models.ResNet50(input_, include_top = True, classes = 1000, freeze_bn = False)
