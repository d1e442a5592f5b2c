from sklearn.datasets import make_classification
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(66)

X, y = make_classification(n_samples=4000, n_features=30, n_informative=15, n_redundant=5,
                           n_classes=3, class_sep=1.0, random_state=66)
X = (X - X.mean(0)) / X.std(0)
X = torch.tensor(X, dtype=torch.float32)
y = torch.tensor(y, dtype=torch.long)
X_train, y_train, X_val, y_val = X[:3200], y[:3200], X[3200:], y[3200:]

model = nn.Sequential(
    nn.Linear(30, 128), nn.ReLU(),
    nn.Linear(128, 128), nn.ReLU(),
    nn.Linear(128, 3),
)
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)
opt = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
fit(model, nn.CrossEntropyLoss(), opt, loader, (X_val, y_val), epochs=40,
    metrics=('accuracy',), csv_path='training.log', history_path='history.json', log_lr=True)
