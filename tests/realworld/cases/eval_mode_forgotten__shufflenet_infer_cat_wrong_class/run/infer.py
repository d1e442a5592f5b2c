# fragments of infer.py as shown in the PR diff (the rest of the file was not visible)
import torch
from PIL import Image
import numpy as np

def get_transformer():
  normalize = transforms.Normalize(
      mean=[0.485, 0.456, 0.406],
      std=[0.229, 0.224, 0.225])

  transformer = transforms.Compose([
      transforms.Resize(128),
      transforms.CenterCrop(128),
  ...
  ])
  return transformer

def preprocess(image, transformer):
  x = transformer(image)
  return Variable(x.unsqueeze(0))

def infer(args):
  # make ShuffleNet model
  print('Creating ShuffleNet model')
  net = ShuffleNet(num_classes=args.num_classes, in_channels=3)
  
