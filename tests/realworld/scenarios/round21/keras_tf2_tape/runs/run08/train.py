import numpy as np
import keras
from keras import layers

config = {
    "data": "data/glyphs_v2.npz",
    "num_classes": 10,
    "batch_size": 32,
    "epochs": 20,
    "learning_rate": 1e-3,
    "seed": 88,
}
keras.utils.set_random_seed(config["seed"])

d = np.load(config["data"])
x_train = d["x_train"][..., None].astype("float32") / 255.0
x_val = d["x_val"][..., None].astype("float32") / 255.0
y_train, y_val = d["y_train"], d["y_val"]
print("x_train:", x_train.shape, "x_val:", x_val.shape)

model = keras.Sequential(
    [
        keras.Input(shape=(12, 12, 1)),
        layers.Conv2D(16, 3, activation="relu", padding="same"),
        layers.MaxPooling2D(),
        layers.Conv2D(32, 3, activation="relu", padding="same"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dense(64, activation="relu"),
        layers.Dense(config["num_classes"], activation="softmax"),
    ],
    name="glyph_cnn",
)
model.summary()

model.compile(
    optimizer=keras.optimizers.Adam(config["learning_rate"]),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)

callbacks = [
    keras.callbacks.CSVLogger("training_log.csv"),
    keras.callbacks.TensorBoard(log_dir="logs"),
]
model.fit(
    x_train,
    y_train,
    batch_size=config["batch_size"],
    epochs=config["epochs"],
    validation_data=(x_val, y_val),
    callbacks=callbacks,
)
model.save("glyph_cnn.keras")
