grid = s2_equatorial_grid()
model = S2Convolution(1, 1, 5, 5, grid)
model.cuda()

x = torch.randn(1, 1, 10, 10).cuda()
y = model(x)
loss = y.sum()
loss.backward()

model.kernel.grad
