import paddle.fluid as fluid
import paddle
import numpy as np #引入数学计算的包
x=fluid.layers.data(name='x',shape=[-1,1],dtype='float32')
y = fluid.layers.data(name='y', shape=[1], dtype='float32')
hidden=fluid.layers.fc(input=x,size=2,act='relu')
net = fluid.layers.fc(input=hidden,size=1,act='tanh')
cost = fluid.layers.square_error_cost(input=net, label=y)
avg_cost = fluid.layers.mean(cost)
optimizer = fluid.optimizer.SGDOptimizer(learning_rate=0.01)
print(net.stop_gradient)
ones_label = fluid.layers.ones((fluid.layers.shape(y)[0],fluid.layers.shape(y)[1]),dtype='float32')
zeros_label = fluid.layers.zeros((fluid.layers.shape(y)[0],fluid.layers.shape(y)[1]),dtype='float32')
mask_label_one = fluid.layers.equal(ones_label,y)
mask_label_zero = fluid.layers.equal(zeros_label,y)
one_nonzero_label = fluid.layers.nonzero(mask_label_one,as_tuple=True)[0]
zero_nonzero_label = fluid.layers.nonzero(mask_label_zero,as_tuple=True)[0]
pos = fluid.layers.index_select(net, one_nonzero_label)
neg = fluid.layers.index_select(net, zero_nonzero_label)
pos = fluid.layers.reshape(pos,shape=[fluid.layers.shape(pos)[0],1])
pos_out = fluid.layers.expand(pos, expand_times=[fluid.layers.shape(pos)[0], fluid.layers.shape(neg)[0]])
new_t = fluid.layers.log(fluid.layers.sigmoid(fluid.layers.clip(pos_out-fluid.layers.t(neg),min=
[... rest of the pasted script not in the stored copy ...]
