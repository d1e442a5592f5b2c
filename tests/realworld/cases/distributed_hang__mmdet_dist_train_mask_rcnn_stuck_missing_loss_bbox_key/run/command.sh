./tools/dist_train.sh ./configs/mask_rcnn_r50_fpn_1x.py 4
