import torch
from torch import nn
from torch import autograd
from torch import optim
import numpy

sm = nn.Softmax()
lsm = nn.LogSoftmax()

crit = nn.NLLLoss()
target = data = torch.LongTensor([1])
target = torch.autograd.Variable(target)

data = torch.FloatTensor([[0, 50, -50]])
data = torch.autograd.Variable(data, requires_grad=True, volatile=False)

num_loop = 1000

for i in xrange(num_loop):
    model = nn.Linear(3, 3, bias=False)
    optimizer = optim.SGD(model.parameters(), lr = 0.01)
    optimizer.zero_grad()

    loss_sm = crit(torch.log(sm(model(data))), target)
    loss_lsm = crit(lsm(model(data)), target)

    # When I use nn.LogSoftmax() class, all gradients are calculated correctly.
    #loss_lsm.backward()
