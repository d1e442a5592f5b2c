python train.py --gpu 0,1,2 --workdir /temp_out --model sparenet
