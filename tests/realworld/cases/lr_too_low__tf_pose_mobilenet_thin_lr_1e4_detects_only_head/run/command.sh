python3 tf_pose/train.py --model=mobilenet_thin --datapath=../coco/annotations --imgpath=../coco/ --batchsize=16 --lr=0.0001 --modelpath=../model/ --logpath=../log/
