#!/usr/bin/env python
# coding: utf-8

# # HW2: Multilayer Perceptron on Digits8x8
# 
# Fill in the cells marked TODO. Save your trained weights to `mlp_weights.pt` and submit this notebook + the weights file.

# In[1]:


import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


# In[2]:


data = np.load("hw2_data/train.npz")
X_train = torch.tensor(data["X"], dtype=torch.float32) / 16.0
y_train = torch.tensor(data["y"], dtype=torch.long)
print(X_train.shape, y_train.shape)


# In[3]:


# TODO: define your MLP (at least one hidden layer)
class MLP(nn.Module):
    def __init__(self, in_dim=64, hidden=128, n_classes=10):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_classes)
        self.act = nn.ReLU()

    def forward(self, x):
        x = self.act(self.fc1(x))
        x = self.act(self.fc2(x))
        return self.out(x)


# In[4]:


# TODO: training loop
model = MLP()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

BATCH_SIZE = 32
EPOCHS = 8
losses = []

for epoch in range(EPOCHS):
    for i in range(0, len(X_train), BATCH_SIZE):
        xb = X_train[i:i + BATCH_SIZE]
        yb = y_train[i:i + BATCH_SIZE]

        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()

        losses.append(loss.item())
        if (i // BATCH_SIZE) % 2 == 0:
            print(f"epoch {epoch} batch {i // BATCH_SIZE:3d}  loss {loss.item():.4f}")


# In[5]:


print("final loss:", losses[-1])
print("mean loss last 10 batches:", sum(losses[-10:]) / 10)


# In[6]:


torch.save(model.state_dict(), "mlp_weights.pt")

