from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(3)

X, y = make_classification(n_samples=420, n_features=40, n_informative=6, n_redundant=4,
                           flip_y=0.03, class_sep=0.9, random_state=3)
X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.4, random_state=3, stratify=y)
sc = StandardScaler().fit(X_train)
X_train = torch.tensor(sc.transform(X_train), dtype=torch.float32)
X_val = torch.tensor(sc.transform(X_val), dtype=torch.float32)
y_train = torch.tensor(y_train, dtype=torch.long)
y_val = torch.tensor(y_val, dtype=torch.long)

model = nn.Sequential(
    nn.Linear(40, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 256), nn.ReLU(),
    nn.Linear(256, 2),
)
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)
opt = torch.optim.Adam(model.parameters(), lr=3e-4)
fit(model, nn.CrossEntropyLoss(), opt, loader, (X_val, y_val), epochs=150,
    metrics=('acc',), csv_path='training.log', history_path='history.json')
