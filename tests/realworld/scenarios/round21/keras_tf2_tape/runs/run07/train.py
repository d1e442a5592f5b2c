import time
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

params = dict(
    data="data/stamps_12px.npz",
    batch_size=64,
    val_batch_size=32,
    epochs=25,
    lr=2e-3,
    dropout=0.5,
    seed=1234,
)
tf.keras.utils.set_random_seed(params["seed"])

d = np.load(params["data"])
x_train = d["x_train"][..., None].astype("float32") / 255.0
y_train = d["y_train"]
x_val = d["x_val"][..., None].astype("float32") / 255.0
y_val = d["y_val"]

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(4096, seed=params["seed"])
            .batch(params["batch_size"]))
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(params["val_batch_size"])


def build_model(num_classes=10, dropout=0.5):
    inputs = keras.Input(shape=(12, 12, 1))
    x = layers.Conv2D(16, 3, padding="same", use_bias=False)(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(32, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.MaxPooling2D()(x)
    x = layers.Flatten()(x)
    x = layers.Dropout(dropout)(x)
    x = layers.Dense(128, activation="relu")(x)
    x = layers.Dropout(dropout)(x)
    outputs = layers.Dense(num_classes)(x)
    return keras.Model(inputs, outputs, name="stamp_cnn")


model = build_model(dropout=params["dropout"])
model.summary()

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(params["lr"])
train_loss = keras.metrics.Mean()
train_acc = keras.metrics.SparseCategoricalAccuracy()
val_loss = keras.metrics.Mean()
val_acc = keras.metrics.SparseCategoricalAccuracy()
writer = tf.summary.create_file_writer("logs/stamp_cnn")


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_loss.update_state(loss)
    train_acc.update_state(y, logits)


@tf.function
def eval_step(x, y):
    logits = model(x, training=True)
    val_loss.update_state(loss_fn(y, logits))
    val_acc.update_state(y, logits)


for epoch in range(params["epochs"]):
    start = time.time()
    for m in (train_loss, train_acc, val_loss, val_acc):
        m.reset_state()
    for step, (x, y) in enumerate(train_ds, 1):
        train_step(x, y)
        if step % 10 == 0:
            print(f"Epoch {epoch + 1} Step {step}: loss={train_loss.result():.3f}, acc={train_acc.result():.2f}")
    for x, y in val_ds:
        eval_step(x, y)
    print(f"Epoch {epoch + 1}: train_loss={train_loss.result():.4f} train_acc={train_acc.result():.4f} "
          f"val_loss={val_loss.result():.4f} val_acc={val_acc.result():.4f} ({time.time() - start:.1f}s)")
    with writer.as_default(step=epoch):
        tf.summary.scalar("train/loss", train_loss.result())
        tf.summary.scalar("train/acc", train_acc.result())
        tf.summary.scalar("val/loss", val_loss.result())
        tf.summary.scalar("val/acc", val_acc.result())

model.compile(loss=loss_fn, metrics=["accuracy"])
print("model.evaluate on the validation set:")
model.evaluate(x_val, y_val, batch_size=params["val_batch_size"])
model.save("stamp_cnn.keras")
