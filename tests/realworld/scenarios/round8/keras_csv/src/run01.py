from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(7)
rng = np.random.default_rng(7)

IMG = 16
N_TRAIN, N_VAL = 2400, 600
CLASSES = ['hbar', 'vbar', 'diag', 'box']


def make_shapes(n):
    X = np.zeros((n, 1, IMG, IMG), dtype=np.float32)
    y = rng.integers(0, 4, size=n)
    for i, c in enumerate(y):
        L = rng.integers(5, 11)
        r, s = rng.integers(0, IMG - L, size=2)
        if c == 0:
            X[i, 0, r, s:s + L] = 1.0
        elif c == 1:
            X[i, 0, r:r + L, s] = 1.0
        elif c == 2:
            for k in range(L):
                X[i, 0, r + k, s + k] = 1.0
        else:
            L = min(L, 8)
            X[i, 0, r, s:s + L] = 1.0
            X[i, 0, r + L - 1, s:s + L] = 1.0
            X[i, 0, r:r + L, s] = 1.0
            X[i, 0, r:r + L, s + L - 1] = 1.0
    X += rng.normal(0, 0.4, size=X.shape).astype(np.float32)
    return torch.tensor(X), torch.tensor(y, dtype=torch.long)


X_train, y_train = make_shapes(N_TRAIN)
X_val, y_val = make_shapes(N_VAL)
mu, sd = X_train.mean(), X_train.std()
X_train = (X_train - mu) / sd
X_val = (X_val - mu) / sd

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(32 * 4 * 4, 64), nn.ReLU(),
    nn.Linear(64, 4),
)
summary(model, (1, IMG, IMG))

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

fit(model, loss_fn, optimizer, train_loader, (X_val, y_val), epochs=20,
    metrics=('accuracy',), csv_path='training.log')
torch.save(model.state_dict(), 'shapes_cnn.pt')
