import os

import torch

os.makedirs("release", exist_ok=True)
ckpt = torch.load("artifacts/intent_clf.pt", map_location="cpu")
sd = ckpt["state_dict"]
print({k: tuple(v.shape) for k, v in sd.items()})
assert sd["emb.weight"].shape[0] == ckpt["vocab_size"]
torch.save(ckpt, "release/intent_clf-2024.06.pt")
print("copied to release/intent_clf-2024.06.pt  (intents:", ckpt["intents"], ")")
