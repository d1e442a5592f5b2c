python run_exp.py configs/kingdra_ladder_im_mnist.json
