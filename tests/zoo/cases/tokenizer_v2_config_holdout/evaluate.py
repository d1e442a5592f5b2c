"""Held-out loss and perplexity of the char LM."""
import json
import math

import torch
import torch.nn.functional as F
import yaml

from data import CharTokenizer, make_corpus
from model import CharLM


def main():
    cfg = yaml.safe_load(open("config.yaml"))
    text = make_corpus(200, seed=2)
    tok = CharTokenizer.load(cfg["tokenizer"])
    ckpt = torch.load(cfg["checkpoint"])
    model = CharLM(ckpt["vocab_size"], cfg)
    model.load_state_dict(ckpt["model"])
    model.eval()
    ids = tok.encode(text)
    with torch.no_grad():
        logits = model(ids[:-1].unsqueeze(0))[0]
        loss = F.cross_entropy(logits, ids[1:]).item()
    print(f"tokenizer: {cfg['tokenizer']} ({len(tok.chars)} symbols)")
    print(f"eval_loss: {loss:.4f}  eval_ppl: {math.exp(loss):.3f}")
    with open("eval_results.json", "w") as f:
        json.dump({"eval_loss": round(loss, 4), "eval_ppl": round(math.exp(loss), 3), "tokenizer": cfg["tokenizer"]}, f, indent=2)


if __name__ == "__main__":
    main()
