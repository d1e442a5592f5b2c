python examples/mnist_acgan.py
