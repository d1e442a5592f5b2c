loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(net, Y))
