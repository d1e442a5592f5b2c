# training (batch size changed to 1 as the default in main.py)
GPUS_PER_NODE=2 ./tools/run_dist_launch.sh 2 ./configs/r50_deformable_detr.sh
# evaluation of the epoch-48 checkpoint
./configs/r50_deformable_detr.sh --resume exps/r50_deformable_detr/checkpoint.pth --eval
