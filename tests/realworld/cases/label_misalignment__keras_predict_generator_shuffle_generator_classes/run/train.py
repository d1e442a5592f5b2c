from keras.preprocessing.image import ImageDataGenerator
from keras.utils.np_utils import to_categorical

datagen = ImageDataGenerator()
generator = datagen.flow_from_directory(
        train_data_dir,
        target_size=(img_width, img_height),
        batch_size=batch_size,
        class_mode=None,
        shuffle=True,
        seed=seed)
bottleneck_features_train = model.predict_generator(
     generator, (generator.n // batch_size)+0)
bottleneck_features_train_lable = to_categorical(generator.classes, num_classes=None)
