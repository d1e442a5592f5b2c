import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow import keras

SETTINGS = {
    "csv": "data/landcover_pixels.csv",
    "feature_cols": ["b2", "b3", "b4", "b5", "b6", "b7", "b8", "b8a", "b11", "b12", "ndvi", "ndwi"],
    "label_col": "class_id",
    "batch_size": 128,
    "epochs": 40,
    "lr": 3e-4,
    "seed": 0,
}
tf.keras.utils.set_random_seed(SETTINGS["seed"])

df = pd.read_csv(SETTINGS["csv"])
print(df[SETTINGS["label_col"]].value_counts().sort_index())

X = df[SETTINGS["feature_cols"]].to_numpy("float32")
y = df[SETTINGS["label_col"]].to_numpy("int64")
num_classes = df[SETTINGS["label_col"]].nunique()
print("num_classes =", num_classes)

rng = np.random.default_rng(SETTINGS["seed"])
idx = rng.permutation(len(X))
split = int(0.8 * len(X))
tr, va = idx[:split], idx[split:]

norm = keras.layers.Normalization()
norm.adapt(X[tr])

model = keras.Sequential([
    keras.Input(shape=(X.shape[1],)),
    norm,
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(num_classes, activation="softmax"),
], name="landcover_mlp")
model.summary()

model.compile(optimizer=keras.optimizers.Adam(SETTINGS["lr"]),
              loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])

history = model.fit(
    X[tr], y[tr],
    validation_data=(X[va], y[va]),
    batch_size=SETTINGS["batch_size"],
    epochs=SETTINGS["epochs"],
    callbacks=[keras.callbacks.CSVLogger("history.csv")],
)
model.save("landcover_mlp.keras")
