from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(21)
rng = np.random.default_rng(21)

X, y_true = make_classification(n_samples=6000, n_features=24, n_informative=10, n_redundant=4,
                                n_classes=4, n_clusters_per_class=1, class_sep=2.0, random_state=21)
# labels as they came back from the annotation round
y = y_true.copy()
relabel = rng.random(len(y)) < 0.4
y[relabel] = rng.integers(0, 4, size=relabel.sum())

X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.2, random_state=21)
sc = StandardScaler().fit(X_train)
X_train = torch.tensor(sc.transform(X_train), dtype=torch.float32)
X_val = torch.tensor(sc.transform(X_val), dtype=torch.float32)
y_train = torch.tensor(y_train, dtype=torch.long)
y_val = torch.tensor(y_val, dtype=torch.long)

model = nn.Sequential(
    nn.Linear(24, 64), nn.ReLU(),
    nn.Linear(64, 32), nn.ReLU(),
    nn.Linear(32, 4),
)
summary(model, (24,), name='sequential_2')
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
fit(model, nn.CrossEntropyLoss(), opt, loader, (X_val, y_val), epochs=60,
    metrics=('accuracy',), csv_path='training.log')
