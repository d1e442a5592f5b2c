#training data
  x_train = [32,53,61,47,59]
  y_train = [31,68,62,71,87]
