for i in range(1000):
  batch_xs, batch_ys = mnist.train.next_batch(1[...]
