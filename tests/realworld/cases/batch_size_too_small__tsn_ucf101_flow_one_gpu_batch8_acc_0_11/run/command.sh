bash scripts/train_tsn.sh ucf101 flow 
