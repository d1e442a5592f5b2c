from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(8)

digits = load_digits()
X = digits.data.astype(np.float32) / 16.0
y = digits.target
X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.2, random_state=8, stratify=y)
X_train, X_val = torch.from_numpy(X_train), torch.from_numpy(X_val)
y_train, y_val = torch.from_numpy(y_train).long(), torch.from_numpy(y_val).long()


class DigitNet(nn.Module):
    def __init__(self, n_in=64, n_hidden=128, n_classes=10):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_in, n_hidden), nn.ReLU(),
            nn.Linear(n_hidden, n_hidden), nn.ReLU(),
        )
        self.head = nn.Linear(n_hidden, n_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        return self.softmax(self.head(self.body(x)))


model = DigitNet()
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

fit(model, criterion, optimizer, loader, (X_val, y_val), epochs=40, metrics=('accuracy',),
    csv_path='training.log')
torch.save(model.state_dict(), 'digitnet.pt')
