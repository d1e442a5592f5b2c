for p in net.parameters():
     print(torch.norm(p))
