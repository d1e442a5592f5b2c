make retrain-kernel
make retrain-kernel RETUNE=1
