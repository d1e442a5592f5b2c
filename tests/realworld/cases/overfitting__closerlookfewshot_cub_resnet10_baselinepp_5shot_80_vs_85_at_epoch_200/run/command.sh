python train.py --dataset CUB --model ResNet10 --method baseline++  --train_aug
python test.py --dataset CUB --model ResNet10 --method baseline++  --train_aug
