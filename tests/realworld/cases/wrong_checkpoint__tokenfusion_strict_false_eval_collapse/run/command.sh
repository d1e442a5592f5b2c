python3 main.py --gpu 0 --resume ./pretrained_models/model-best.pth.tar --evaluate
