import mmcv
from mmseg.apis import show_result_pyplot, inference_segmentor
import numpy as np
import matplotlib.patches as mpatches
from matplotlib import pyplot as plt
from mmseg.models import build_segmentor
from mmcv import Config

cfg = Config.fromfile('configs/pspnet/pspnet_r50-d8_512x1024_40k_cityscapes.py')

img = mmcv.imread('iccv09Data/images/6000124.jpg')

model = build_segmentor(cfg.model)

model.cfg = cfg
result = inference_segmentor(model, img)
