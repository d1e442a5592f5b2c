import pandas as pd
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(17)
rng = np.random.default_rng(17)

# ---- loan applications (export from the warehouse) ----
n = 5000
df = pd.DataFrame({
    'income': rng.normal(62000, 21000, n).clip(9000),
    'loan_amount': rng.lognormal(9.6, 0.6, n),
    'age': rng.integers(19, 75, n).astype(float),
    'debt_ratio': rng.beta(2, 5, n),
    'credit_util': rng.beta(2, 3, n),
    'n_late_payments': rng.poisson(1.0, n).astype(float),
    'account_age_days': rng.integers(30, 4000, n).astype(float),
})
z = (-1.2 + 6.0 * (df.debt_ratio - 0.28) + 4.0 * (df.credit_util - 0.4) + 0.9 * (df.n_late_payments - 1)
     + 0.4 * (df.loan_amount / df.income - 0.3) - 0.012 * (df.age - 45))
df['default'] = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)

feature_cols = ['income', 'loan_amount', 'age', 'debt_ratio', 'credit_util', 'n_late_payments',
                'account_age_days']
train_df, val_df = df.iloc[:4000], df.iloc[4000:]
X_train = torch.tensor(train_df[feature_cols].values, dtype=torch.float32)
X_val = torch.tensor(val_df[feature_cols].values, dtype=torch.float32)
y_train = torch.tensor(train_df['default'].values, dtype=torch.float32).unsqueeze(1)
y_val = torch.tensor(val_df['default'].values, dtype=torch.float32).unsqueeze(1)

model = nn.Sequential(
    nn.Linear(len(feature_cols), 64), nn.ReLU(),
    nn.Linear(64, 32), nn.ReLU(),
    nn.Linear(32, 1),
)
summary(model, (len(feature_cols),))
loader = DataLoader(TensorDataset(X_train, y_train), batch_size=32, shuffle=True)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
fit(model, nn.BCEWithLogitsLoss(), opt, loader, (X_val, y_val), epochs=30,
    metrics=('binary_accuracy', 'auc'), binary=True, history_path='history.json')
