"""Train the char LM; writes the tokenizer it used next to the checkpoint."""
import os

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

from data import CharTokenizer, make_corpus
from model import CharLM


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    torch.manual_seed(cfg["seed"])
    text = make_corpus(cfg["n_sentences"], seed=1)
    os.makedirs("tokenizer", exist_ok=True)
    tok = CharTokenizer(sorted(set(text)))
    tok.save("tokenizer/vocab_v1.json")
    ids = tok.encode(text)
    b = cfg["block"]
    n = (len(ids) - 1) // b
    x = ids[: n * b].view(n, b)
    y = ids[1: n * b + 1].view(n, b)
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)
    model = CharLM(len(tok.chars), cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    step = 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in loader:
            step += 1
            loss = F.cross_entropy(model(xb).reshape(-1, len(tok.chars)), yb.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 5 == 0:
                print(f"step {step} loss {loss.item():.4f}", flush=True)
    os.makedirs("checkpoints", exist_ok=True)
    torch.save({"model": model.state_dict(), "vocab_size": len(tok.chars)}, cfg["checkpoint"])


if __name__ == "__main__":
    main()
