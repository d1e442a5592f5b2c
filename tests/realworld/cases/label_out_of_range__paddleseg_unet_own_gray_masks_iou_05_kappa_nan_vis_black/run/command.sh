python pdseg/eval.py --use_gpu --cfg ./configs/unet_optic.yaml
python pdseg/vis.py --use_gpu --cfg ./configs/unet_optic.yaml
