 python train.py task=mt80 model_size=1 batch_size=1024 checkpoint="/Project/TD——MPC/tdmpc2/logs/mt80/1/default/models/1000000.pt"
