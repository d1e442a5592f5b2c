import sys
import pandas as pd
import torch
from safetensors.torch import load_file

from train import GRUClassifier, build_vocab, encode

df = pd.read_csv(sys.argv[1] if len(sys.argv) > 1 else "data/support_reviews_march.csv")
vocab = build_vocab(df["text"])

state = load_file("gru-review-sentiment/model.safetensors")
model = GRUClassifier(state["embeddings.weight"].shape[0])
model.load_state_dict(state)
model.eval()

ids = torch.tensor(encode(df["text"], vocab))
with torch.no_grad():
    preds = model(ids)["logits"].argmax(-1).numpy()

df["pred"] = preds
print("accuracy:", (df["pred"] == df["label"]).mean())
df.to_csv("predictions.csv", index=False)
