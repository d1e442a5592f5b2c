import hashlib
import os
import shutil

import torch

src, dst = "ckpt/last.pt", "serve/model/last.pt"
ckpt = torch.load(src, map_location="cpu")
print("torch", torch.__version__)
print("checkpoint keys:", list(ckpt))
print("args:", ckpt["args"])
print("epoch:", ckpt["epoch"], "norm:", ckpt["norm_mean"], ckpt["norm_std"])
os.makedirs(os.path.dirname(dst), exist_ok=True)
shutil.copy(src, dst)
print("copied", src, "->", dst, "sha256", hashlib.sha256(open(dst, "rb").read()).hexdigest()[:12])
