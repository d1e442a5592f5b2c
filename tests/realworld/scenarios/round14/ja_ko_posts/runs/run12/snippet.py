def evaluate(model, loader):
    correct, total, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum += criterion(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            total += len(y)
    return loss_sum / total, correct / total

# ...

print("--- 1枚ずつ予測 (先頭12枚) ---")
for k in range(2):
    preds = []
    with torch.no_grad():
        for i in range(12):
            img = x_test[i].unsqueeze(0)
            preds.append(model(img).argmax(1).item())
    print(f"予測{k + 1}回目: {preds}")
print(f"正解     : {y_test[:12].tolist()}")
