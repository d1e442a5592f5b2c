df = pd.read_csv("customers.csv")
print(df.shape)
print(list(df.columns))

X = df.drop(columns=["customer_id", "churn"]).values.astype(np.float32)
y = df["churn"].values

rng = np.random.default_rng(42)
idx = rng.permutation(len(df))
n_tr = int(len(df) * 0.8)
tr, te = idx[:n_tr], idx[n_tr:]
mean, std = X[tr].mean(axis=0), X[tr].std(axis=0)
X = (X - mean) / std
