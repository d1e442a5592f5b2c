from sklearn.datasets import make_classification
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(11)

# transactions; label 1 = chargeback
X, y = make_classification(n_samples=6000, n_features=20, n_informative=6, n_redundant=2,
                           weights=[0.92], class_sep=1.0, flip_y=0.01, random_state=11)
X = (X - X.mean(0)) / X.std(0)
X = torch.tensor(X, dtype=torch.float32)
y = torch.tensor(y, dtype=torch.float32).unsqueeze(1)
X_train, y_train, X_val, y_val = X[:4800], y[:4800], X[4800:], y[4800:]

model = nn.Sequential(
    nn.Linear(20, 64), nn.ReLU(),
    nn.Linear(64, 64), nn.ReLU(),
    nn.Linear(64, 1),
)
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=0.05)
fit(model, nn.BCEWithLogitsLoss(), opt, loader, (X_val, y_val), epochs=50,
    metrics=('accuracy', 'precision', 'recall', 'auc'), binary=True,
    csv_path='training.log', history_path='history.json')
