import json

import torch
import torch.nn.functional as F
import yaml
from transformers import AutoModelForSequenceClassification

cfg = yaml.safe_load(open("config.yaml"))
label2id = json.load(open("labels.json"))
model = AutoModelForSequenceClassification.from_pretrained(cfg["model"], num_labels=cfg["num_labels"]).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
for step, batch in enumerate(make_loader(label2id, cfg["batch_size"])):
    out = model(input_ids=batch["input_ids"].cuda(), attention_mask=batch["attention_mask"].cuda())
    loss = F.cross_entropy(out.logits, batch["labels"].cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}")
