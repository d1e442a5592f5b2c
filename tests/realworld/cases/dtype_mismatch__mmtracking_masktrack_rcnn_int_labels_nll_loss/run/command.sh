python ./tools/train.py ./configs/vis/masktrack_rcnn/masktrack_rcnn_r50_fpn_12e_youtubevis2021.py  --work-dir ./work_dirs/
