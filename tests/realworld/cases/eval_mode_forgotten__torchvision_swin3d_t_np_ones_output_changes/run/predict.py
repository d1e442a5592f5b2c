import torch
import numpy as np
import torchvision

torch_model = torchvision.models.video.swin3d_t(
    pretrained=True
) 

np_input = np.ones(((1, 3, 32, 224, 224))).astype('float32')
torch_input = torch.from_numpy(np_input)

def run():
    with torch.no_grad():
        out_pt = torch_model(torch_input)
        print(out_pt[0, :5])

run()
tensor([ 0.2096,  0.8295,  0.2413, -1.1546, -0.0913])

run()
tensor([ 0.0429,  0.8538,  0.3214, -1.2695,  0.0097])

run()
tensor([-0.0245,  0.6934,  0.5590, -1.1861,  0.2010])
