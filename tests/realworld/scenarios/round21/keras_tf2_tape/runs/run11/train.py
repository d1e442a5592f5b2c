import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

HP = {
    "data": "data/signs_v4.npz",
    "num_classes": 10,
    "batch_size": 32,
    "epochs": 15,
    "lr": 1e-3,
    "seed": 2024,
}
keras.utils.set_random_seed(HP["seed"])


def load_split(d, split):
    x = d[f"x_{split}"].reshape(len(d[f"x_{split}"]), -1).astype("float32") / 255.0
    y = d[f"y_{split}"].astype("int64")
    return x, y


d = np.load(HP["data"])
x_train, y_train = load_split(d, "train")
x_val, y_val = load_split(d, "val")

model = keras.Sequential([
    keras.Input(shape=(x_train.shape[1],)),
    layers.Dense(256, activation="relu"),
    layers.Dense(128, activation="relu"),
    layers.Dense(HP["num_classes"], activation="softmax"),
], name="sign_mlp")

model.compile(
    optimizer=keras.optimizers.Adam(HP["lr"]),
    loss="sparse_categorical_crossentropy",
    metrics=[keras.metrics.CategoricalAccuracy(name="accuracy")],
)

history = model.fit(
    x_train, y_train,
    validation_data=(x_val, y_val),
    batch_size=HP["batch_size"],
    epochs=HP["epochs"],
    callbacks=[
        keras.callbacks.CSVLogger("history.csv"),
        keras.callbacks.ModelCheckpoint("ckpt/sign_mlp_best.keras", monitor="val_accuracy", save_best_only=True),
    ],
)
model.save("sign_mlp.keras")
