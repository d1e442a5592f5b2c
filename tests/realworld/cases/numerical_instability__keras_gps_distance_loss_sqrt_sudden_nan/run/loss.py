return K.mean(tf.sqrt(tf.add(tf.square(lx), tf.square(ly))))
