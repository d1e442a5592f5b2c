import torch

from torchgeo.models import OlmoEarthV1_Weights, olmoearth_v1

weights = OlmoEarthV1_Weights.NANO
checkpoint = weights.get_state_dict(progress=False, weights_only=True)
model = olmoearth_v1(weights=weights)

print('checkpoint key:', next(iter(checkpoint)))
print('model key:     ', next(iter(model.state_dict())))
