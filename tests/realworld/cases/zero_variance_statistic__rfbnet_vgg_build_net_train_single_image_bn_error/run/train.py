a=torch.randn(1,3,300,300)
rfb=build_net('train')
out=rfb(a)
