Dense(32, nclasses), softmax)
