bash ./local/run_train.sh
