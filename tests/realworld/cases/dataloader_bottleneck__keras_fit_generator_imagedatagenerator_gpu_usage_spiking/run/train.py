generator = ImageDataGenerator(
    featurewise_center=True,
    rotation_range=90,
    horizontal_flip=True,
    vertical_flip=True,
    width_shift_range=.5,
    height_shift_range=.5,
    fill_mode='reflect'
)

batch_size = 2560

iterator = generator.flow(x_train, y_train[:, 0], batch_size=batch_size)

steps_per_epoch = math.ceil(len(x_train) / batch_size)

fit = model.fit_generator(iterator, steps_per_epoch, epochs=10000, verbose=True, workers=3, max_q_size=50)
