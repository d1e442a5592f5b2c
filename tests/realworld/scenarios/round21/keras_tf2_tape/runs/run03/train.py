import time
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

CFG = {
    "data": "data/glyphs12.npz",
    "batch_size": 64,
    "epochs": 30,
    "learning_rate": 1e-3,
    "hidden": (128, 64),
    "log_every": 15,
    "seed": 7,
}

keras.utils.set_random_seed(CFG["seed"])

data = np.load(CFG["data"])
x_train = data["x_train"].reshape(-1, 144).astype("float32") / 255.0
y_train = data["y_train"].astype("int64")
x_val = data["x_val"].reshape(-1, 144).astype("float32") / 255.0
y_val = data["y_val"].astype("int64")
print(f"train: {x_train.shape}, val: {x_val.shape}, classes: {len(np.unique(y_train))}")

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(len(x_train), seed=CFG["seed"]).batch(CFG["batch_size"]))
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(256)


class GlyphNet(keras.Model):
    def __init__(self, num_classes=10, hidden=(128, 64)):
        super().__init__()
        self.hidden = [layers.Dense(h, activation="relu") for h in hidden]
        self.classifier = layers.Dense(num_classes)

    def call(self, x, training=False):
        for layer in self.hidden:
            x = layer(x)
        return tf.nn.softmax(self.classifier(x))


model = GlyphNet(hidden=CFG["hidden"])
model.build((None, 144))
model.summary()

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(learning_rate=CFG["learning_rate"])

train_loss = keras.metrics.Mean(name="loss")
train_acc = keras.metrics.SparseCategoricalAccuracy(name="acc")
val_loss = keras.metrics.Mean(name="val_loss")
val_acc = keras.metrics.SparseCategoricalAccuracy(name="val_acc")

writer = tf.summary.create_file_writer("logs/glyphnet")


def train_step(x, y):
    with tf.GradientTape() as tape:
        preds = model(x, training=True)
        loss = loss_fn(y, preds)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_loss.update_state(loss)
    train_acc.update_state(y, preds)
    return loss


def val_step(x, y):
    preds = model(x, training=False)
    val_loss.update_state(loss_fn(y, preds))
    val_acc.update_state(y, preds)


for epoch in range(CFG["epochs"]):
    t0 = time.time()
    for m in (train_loss, train_acc, val_loss, val_acc):
        m.reset_state()
    for step, (x, y) in enumerate(train_ds, start=1):
        train_step(x, y)
        if step % CFG["log_every"] == 0:
            print(f"Epoch {epoch + 1} Step {step}: loss={train_loss.result():.3f}, acc={train_acc.result():.2f}")
    for x, y in val_ds:
        val_step(x, y)
    print(f"Epoch {epoch + 1}/{CFG['epochs']} - {time.time() - t0:.1f}s - loss: {train_loss.result():.4f} - "
          f"acc: {train_acc.result():.4f} - val_loss: {val_loss.result():.4f} - val_acc: {val_acc.result():.4f}")
    with writer.as_default():
        tf.summary.scalar("loss", train_loss.result(), step=epoch)
        tf.summary.scalar("acc", train_acc.result(), step=epoch)
        tf.summary.scalar("val_loss", val_loss.result(), step=epoch)
        tf.summary.scalar("val_acc", val_acc.result(), step=epoch)

model.save_weights("checkpoints/glyphnet.weights.h5")
