python3 main.py --dataset minc --model deepten --batch-size 64 --lr 0.01 --epochs 60
