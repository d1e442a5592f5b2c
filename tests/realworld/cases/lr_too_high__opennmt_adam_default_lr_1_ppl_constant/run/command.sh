python train.py -data data/demo -save_model demo-model -optim adam -gpuid 0
