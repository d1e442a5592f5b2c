import torch, torchvision
import detectron2
from detectron2.utils.logger import setup_logger
setup_logger()
import numpy as np
import cv2
import random
from detectron2.engine import DefaultPredictor
from detectron2.config import get_cfg
import pandas as pd

# read images
images = []
images.append(cv2.imread("./input.jpg"))

# model config and weights
cfg = get_cfg()
cfg.merge_from_file("./detectron2_repo/configs/Misc/cascade_mask_rcnn_X_152_32x8d_FPN_IN5k_gn_dconv.yaml")

cfg.MODEL.WEIGHTS = "https://dl.fbaipublicfiles.com/detectron/ImageNetPretrained/25093814/X-152-32x8d-IN5k.pkl"

# define predictor and output df
predictor = DefaultPredictor(cfg)
result = pd.DataFrame(columns=["class_ids"])

# predict and create results
for num, im in enumerate(images):
    outputs = predictor(im)
    classes = outputs["instances"].pred_classes
    boxes = outputs["instances"].pred_boxes
    scores = outputs["instances"].scores
    result.loc[num] = [classes.tolist()]

# save results
result.to_excel("results.xlsx")
