import chainer
from chainer import links as L
from chainer import functions as F
from chainer import Variable
import numpy as np

l = L.Linear(None, 100)

x = Variable(np.zeros((10, 20)).astype("f"))

o = chainer.optimizers.SGD()

o.setup(l)
l.cleargrads()
y = l(x)
print(l.W.data.shape)

y.grad = np.zeros_like(y.data) + 1.0
y.backward(retain_grad=True)

print(l.W.data)
o.update()
print(l.W.data)
