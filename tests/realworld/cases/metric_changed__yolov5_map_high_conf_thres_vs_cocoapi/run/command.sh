python test.py --data data/coco.yaml --conf-thres 0.7
