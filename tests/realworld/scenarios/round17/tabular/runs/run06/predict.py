import sys
import json
import joblib
import pandas as pd
import torch
from sklearn.metrics import roc_auc_score, classification_report

from train import EmbMLP, CAT_COLS, NUM_COLS

path = sys.argv[1]
df = pd.read_csv(path, sep=";")
print(f"scoring {path}: {df.shape}")
print(df.head())

has_label = "y" in df.columns
if has_label:
    labels = (df["y"] == "yes").astype(int).values
for c in CAT_COLS:
    df[c] = df[c].astype("category").cat.codes

scaler = joblib.load("artifacts/scaler.joblib")
cards = json.load(open("artifacts/cards.json"))["cards"]
model = EmbMLP(cards, len(NUM_COLS))
model.load_state_dict(torch.load("artifacts/model.pt"))
model.eval()

x_cat = torch.tensor(df[CAT_COLS].values, dtype=torch.long)
x_num = torch.tensor(scaler.transform(df[NUM_COLS]), dtype=torch.float32)
with torch.no_grad():
    p = torch.sigmoid(model(x_cat, x_num)).numpy()

df["p_subscribe"] = p
df[["p_subscribe"]].to_csv(path.replace(".csv", "_scored.csv"), index=False)
print(df["p_subscribe"].describe())
if has_label:
    print("ROC AUC:", round(roc_auc_score(labels, p), 4))
    print(classification_report(labels, (p > 0.5).astype(int), digits=3))
