# -*- coding: utf-8 -*-
# تحميل النموذج المحفوظ وتشغيله على بيانات الاختبار
import numpy as np
import torch

from train import Classifier

d = np.load("data/sensors_test.npz")
X_test, y_test = torch.tensor(d["X"]), torch.tensor(d["y"])

model = Classifier(X_test.shape[1], 6)
model.load_state_dict(torch.load("best_model.pt"))
print("تم تحميل النموذج من best_model.pt")

preds = []
with torch.no_grad():
    for i in range(0, len(X_test), 32):
        preds.append(model(X_test[i:i + 32]).argmax(1))
preds = torch.cat(preds)
print("دقة الاختبار:", round((preds == y_test).float().mean().item(), 4))

# نفس العينات الخمس مرتين للتأكد
with torch.no_grad():
    print("التوقعات (1):", model(X_test[:5]).argmax(1).tolist())
    print("التوقعات (2):", model(X_test[:5]).argmax(1).tolist())
print("الفئات الحقيقية:", y_test[:5].tolist())
