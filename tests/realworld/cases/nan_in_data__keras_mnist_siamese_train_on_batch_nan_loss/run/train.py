
batch_size=128
epochs = 10
nsamples = 60000
x = np.zeros((batch_size,784))
y = np.zeros((batch_size,784))
l = np.zeros((batch_size,1))

for epoch in range(epochs):
    shuf = np.random.permutation(nsamples)
    nbatches = int(nsamples/batch_size)
    for k in range(nbatches):
        sh = shuf[k*batch_size:k*batch_size+batch_size]
        print(sh)
        for s in range(batch_size):
            x[s] = tr_pairs[sh[s],0]
            y[s] = tr_pairs[sh[s],1]
            l[s] = tr_y[sh[s]]
        #train here
        tt = g.train_on_batch({'input_a': x, 'input_b': y, 'output': l})
        print(tt[0])
