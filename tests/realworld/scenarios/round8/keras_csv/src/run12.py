from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(12)

X, y = make_moons(n_samples=1200, noise=0.35, random_state=12)
X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, random_state=1)
X_train, X_val = torch.tensor(X_train, dtype=torch.float32), torch.tensor(X_val, dtype=torch.float32)
y_train = torch.tensor(y_train, dtype=torch.float32).unsqueeze(1)
y_val = torch.tensor(y_val, dtype=torch.float32).unsqueeze(1)

model = nn.Sequential(
    nn.Linear(2, 32), nn.ReLU(),
    nn.Linear(32, 32), nn.ReLU(),
    nn.Linear(32, 1),
)
summary(model, (2,), name='sequential_1')
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=8, shuffle=True)
opt = torch.optim.SGD(model.parameters(), lr=0.03)
fit(model, nn.BCEWithLogitsLoss(), opt, loader, (X_val, y_val), epochs=200,
    metrics=('binary_accuracy',), binary=True, history_path='history.json')
