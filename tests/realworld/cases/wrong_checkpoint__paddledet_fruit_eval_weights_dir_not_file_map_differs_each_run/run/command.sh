python -u tools/eval.py -c configs/faster_rcnn_r50_fruit.yml -o weights=output/faster_rcnn_r50_fruit/
