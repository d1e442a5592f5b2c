l1 = Dense(28^2,32, relu)
l2 = Dense(32, 10)
m(x) = softmax(l2(l1(x)))
