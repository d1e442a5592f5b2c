y = cnn_model.CNN(x) 
y_final = sess.run(y, feed_dict={x: batch_xs, y_: batch_ys, is_training: False})
