import time
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

HPARAMS = {
    "data": "data/telemetry_4cls.npz",
    "hidden_units": [256, 256, 256],
    "bias_init": -1.0,
    "learning_rate": 1e-3,
    "batch_size": 64,
    "epochs": 30,
    "log_dir": "logs/telemetry_mlp",
    "seed": 12,
}
tf.keras.utils.set_random_seed(HPARAMS["seed"])

data = np.load(HPARAMS["data"])
x_train, y_train = data["x_train"], data["y_train"]
x_val, y_val = data["x_val"], data["y_val"]
mean, std = x_train.mean(axis=0), x_train.std(axis=0)
x_train = (x_train - mean) / std
x_val = (x_val - mean) / std

inputs = keras.Input(shape=(x_train.shape[1],))
x = inputs
for units in HPARAMS["hidden_units"]:
    x = layers.Dense(units, activation="relu",
                     bias_initializer=keras.initializers.Constant(HPARAMS["bias_init"]))(x)
outputs = layers.Dense(4)(x)
model = keras.Model(inputs, outputs, name="telemetry_mlp")
model.summary()

hidden_names = [l.name for l in model.layers if isinstance(l, layers.Dense)][:-1]
probe = keras.Model(inputs, [model.get_layer(n).output for n in hidden_names])

loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.Adam(HPARAMS["learning_rate"])
acc = keras.metrics.SparseCategoricalAccuracy()
writer = tf.summary.create_file_writer(HPARAMS["log_dir"])

train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(len(x_train), seed=HPARAMS["seed"]).batch(HPARAMS["batch_size"]))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    acc.update_state(y, logits)
    return loss, grads


global_step = 0
for epoch in range(HPARAMS["epochs"]):
    t0 = time.time()
    acc.reset_state()
    losses = []
    for step, (x, y) in enumerate(train_ds, 1):
        loss, grads = train_step(x, y)
        losses.append(float(loss))
        global_step += 1
        with writer.as_default(step=global_step):
            tf.summary.scalar("train/loss", loss)
            for v, g in zip(model.trainable_variables, grads):
                tf.summary.scalar(f"grad_norm/{v.name.split(':')[0]}", tf.norm(g))
        if step % 10 == 0:
            print(f"epoch {epoch + 1:02d} step {step:03d} | loss {np.mean(losses):.4f} | acc {acc.result():.3f}")
    val_logits = model(x_val, training=False)
    val_loss = float(loss_fn(y_val, val_logits))
    val_acc = float(np.mean(np.argmax(val_logits, axis=1) == y_val))
    acts = probe(x_val[:512])
    with writer.as_default(step=epoch):
        tf.summary.scalar("val/loss", val_loss)
        tf.summary.scalar("val/acc", val_acc)
        for n, a in zip(hidden_names, acts):
            tf.summary.histogram(f"activations/{n}", a)
        for v in model.trainable_variables:
            tf.summary.histogram(f"weights/{v.name.split(':')[0]}", v)
    print(f"epoch {epoch + 1:02d} done in {time.time() - t0:.1f}s | train_loss {np.mean(losses):.4f} "
          f"train_acc {acc.result():.3f} | val_loss {val_loss:.4f} val_acc {val_acc:.3f}")

model.save("telemetry_mlp.keras")
