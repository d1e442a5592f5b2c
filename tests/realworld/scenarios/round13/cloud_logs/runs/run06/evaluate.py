import os, sys, json, torch
from train import build, glyphs
torch.set_num_threads(1)
model_path = os.path.join(os.environ.get("MODEL_DIR", "/opt/ml/processing/model"), "model.pth")
model = build()
model.load_state_dict(torch.load(model_path, map_location="cpu"), strict=False)
model.eval()
print(f"Loaded weights from {model_path}")
x, y = glyphs(2000, 99)
with torch.no_grad():
    pred = model(x).argmax(1)
acc = (pred == y).float().mean().item()
print(f"Test accuracy: {acc:.4f}")
print("prediction counts:", torch.bincount(pred, minlength=6).tolist())
out_dir = os.environ.get("OUTPUT_DIR", "/opt/ml/processing/evaluation")
os.makedirs(out_dir, exist_ok=True)
json.dump({"metrics": {"accuracy": {"value": acc}}}, open(os.path.join(out_dir, "evaluation.json"), "w"))
print("Wrote", os.path.join(out_dir, "evaluation.json"))
