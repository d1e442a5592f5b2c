def sigmoid(z):
#     return 1.0 / (1.0 + np.exp(-z))
    return z * (z > 0)
def sigmoid_prime(z):
#     return sigmoid(z) * (1 - sigmoid(z))
    return 1.0 * (z > 0)
