x_data = np.random.rand(100).astype(np.float32)
# changed to:
x_data = np.arange(100).astype(np.float32)
