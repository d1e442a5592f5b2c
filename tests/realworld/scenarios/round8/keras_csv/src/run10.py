from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(10)

# scans are stored one folder per digit: 0/, 1/, ..., 9/
digits = load_digits()
folders = [digits.images[digits.target == d] for d in range(10)]
images = np.concatenate(folders).astype(np.float32) / 16.0
labels = np.concatenate([np.full(len(f), d) for d, f in enumerate(folders)])

is_val = np.arange(len(images)) % 5 == 0
X_train = torch.from_numpy(images[~is_val]).unsqueeze(1)
y_train = torch.from_numpy(labels[~is_val]).long()
X_val = torch.from_numpy(images[is_val]).unsqueeze(1)
y_val = torch.from_numpy(labels[is_val]).long()

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(16 * 4 * 4, 64), nn.ReLU(),
    nn.Linear(64, 10),
)
summary(model, (1, 8, 8))

train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
fit(model, nn.CrossEntropyLoss(), optimizer, train_loader, (X_val, y_val), epochs=20,
    metrics=('accuracy',), progress_every=10)
