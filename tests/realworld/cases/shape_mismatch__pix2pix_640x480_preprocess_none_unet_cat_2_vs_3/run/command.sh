python3 train.py --dataroot ./datasets/sim2real --name sim2real_pix2pix --model pix2pix --direction AtoB --preprocess none
