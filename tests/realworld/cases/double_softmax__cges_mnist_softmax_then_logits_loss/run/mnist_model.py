return tf.nn.softmax(output)
