loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)
