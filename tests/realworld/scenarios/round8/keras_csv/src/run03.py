import pandas as pd
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(11)

# --- build the customer table (same columns as the export from the CRM) ---
Xr, yr = make_classification(n_samples=3000, n_features=12, n_informative=5, n_redundant=2,
                             n_classes=3, n_clusters_per_class=2, class_sep=0.8, flip_y=0.08,
                             random_state=11)
cols = ['tenure', 'monthly_spend', 'n_tickets', 'n_logins', 'discount', 'age',
        'n_products', 'late_payments', 'region_score', 'web_visits', 'app_visits', 'nps']
df = pd.DataFrame(Xr, columns=cols)
df['plan'] = np.array(['basic', 'plus', 'premium'])[yr]

# encode the plan label for the network
plan_ids = {'basic': 0, 'plus': 1, 'premium': 2}
df['plan_id'] = df['plan'].map(plan_ids)

features = df.drop(columns=['plan'])
target = df['plan_id']

X_train, X_val, y_train, y_val = train_test_split(features.values, target.values, test_size=0.2,
                                                  random_state=11)
mu, sd = X_train.mean(0), X_train.std(0)
X_train = torch.tensor((X_train - mu) / sd, dtype=torch.float32)
X_val = torch.tensor((X_val - mu) / sd, dtype=torch.float32)
y_train = torch.tensor(y_train, dtype=torch.long)
y_val = torch.tensor(y_val, dtype=torch.long)
print('train', tuple(X_train.shape), 'val', tuple(X_val.shape))

model = nn.Sequential(
    nn.Linear(X_train.shape[1], 64), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(32, 3),
)
summary(model, (X_train.shape[1],))

loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)
opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
fit(model, nn.CrossEntropyLoss(), opt, loader, (X_val, y_val), epochs=12,
    metrics=('sparse_categorical_accuracy',))
