from sklearn.datasets import make_classification
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
np.random.seed(5)
torch.manual_seed(5)

X, y = make_classification(n_samples=20000, n_features=20, n_informative=12, n_redundant=2,
                           n_classes=5, n_clusters_per_class=1, class_sep=1.5, random_state=5)
X = X.astype(np.float32)

# shuffle before the split
np.random.shuffle(X)
np.random.shuffle(y)

n_val = 4000
X_train, y_train = X[:-n_val], y[:-n_val]
X_val, y_val = X[-n_val:], y[-n_val:]
mu, sd = X_train.mean(0), X_train.std(0)
X_train = torch.from_numpy((X_train - mu) / sd)
X_val = torch.from_numpy((X_val - mu) / sd)
y_train = torch.from_numpy(y_train).long()
y_val = torch.from_numpy(y_val).long()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.bn1 = nn.BatchNorm1d(32)
        self.fc2 = nn.Linear(32, 32)
        self.out = nn.Linear(32, 5)

    def forward(self, x):
        x = torch.relu(self.bn1(self.fc1(x)))
        x = torch.relu(self.fc2(x))
        return self.out(x)


model = Net()
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=128, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
fit(model, nn.CrossEntropyLoss(), optimizer, loader, (X_val, y_val), epochs=25,
    metrics=('accuracy',))
torch.save(model.state_dict(), 'model.pt')
