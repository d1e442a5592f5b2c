pred=tf.nn.softmax(tf.add(tf.matmul(x,W),b))
cost =tf.reduce_mean(-tf.reduce_sum(y*tf.log(pred),reduction_indices=1))

cross_entropy = tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(tf.add(tf.matmul(x,W),b)),y)
cost=tf.reduce_mean(cross_entropy)
