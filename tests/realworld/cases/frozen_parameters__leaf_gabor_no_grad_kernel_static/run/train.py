import torch
from leaf_audio_pytorch import frontend
import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0"

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = frontend.Leaf().to(device)

## A random input that is like an audio waveform
x = torch.rand(1,1,97339).cuda(device, non_blocking=True)

a.train()
print(a._complex_conv._kernel.data)
opt = torch.optim.Adam(a.parameters(), lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=1e-6, amsgrad=True)
for _ in range(100):
    b = a(x)
	
    ## Ground truth for the output for leaf module
    b_gt = torch.ones_like(b)
	
    loss = torch.norm((b-b_gt).view(1,-1),p=2,dim=-1)
    opt.zero_grad()
    loss.backward()
    opt.step()
print('======================================================================================')
print(a._complex_conv._kernel.data)
