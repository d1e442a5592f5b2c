python train_aux.py --device 0 --batch-size 8 --data data/custom.yaml --img 1280 1280 --cfg yolov7-w6.yaml --weights '' --name w6-test --hyp data/hyp.scratch.p6.yaml --epochs 150
