python dcrnn_train_pytorch.py --config_filename=data/model/dcrnn_la.yaml
