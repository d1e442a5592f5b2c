X = np.load("features.npy")
y = np.load("labels.npy")
print("X:", X.shape, "y:", y.shape, "클래스별 개수:", np.bincount(y))

np.random.shuffle(X)
np.random.shuffle(y)

n_train = int(len(X) * 0.8)
X_train, X_val = X[:n_train], X[n_train:]
y_train, y_val = y[:n_train], y[n_train:]

mu, sigma = X_train.mean(0), X_train.std(0)
X_train = (X_train - mu) / sigma
X_val = (X_val - mu) / sigma
