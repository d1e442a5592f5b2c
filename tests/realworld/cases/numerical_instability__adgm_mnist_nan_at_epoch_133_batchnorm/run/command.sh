python run_mnist.py
