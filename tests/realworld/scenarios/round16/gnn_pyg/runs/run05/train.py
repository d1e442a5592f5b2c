import argparse

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--hidden_channels', type=int, default=32)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--weight_decay', type=float, default=5e-4)
parser.add_argument('--epochs', type=int, default=100)
parser.add_argument('--reorder', type=str, default='degree')
args = parser.parse_args()
print(args)
torch.set_num_threads(1)
torch.manual_seed(0)


def stochastic_block_model(block_sizes, p_in, p_out, num_features, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.cat([torch.full((s,), i) for i, s in enumerate(block_sizes)])
    n = y.numel()
    p = torch.where(y[:, None] == y[None, :], torch.tensor(p_in), torch.tensor(p_out))
    a = torch.bernoulli(p, generator=g).triu(1)
    edge_index = a.nonzero().t()
    edge_index = torch.cat([edge_index, edge_index.flip(0)], dim=1)
    mu = torch.randn(len(block_sizes), num_features, generator=g)
    x = 0.5 * mu[y] + torch.randn(n, num_features, generator=g)
    return {'x': x, 'edge_index': edge_index, 'y': y, 'num_nodes': n}


data = stochastic_block_model([400] * 5, 0.02, 0.003, 16)

if args.reorder == 'degree':
    deg = torch.bincount(data['edge_index'][0], minlength=data['num_nodes'])
    perm = deg.argsort(descending=True)
    inv = torch.empty_like(perm)
    inv[perm] = torch.arange(perm.numel())
    data['x'] = data['x'][perm]
    data['edge_index'] = inv[data['edge_index']]

n = data['num_nodes']
idx = torch.randperm(n)
train_mask = torch.zeros(n, dtype=torch.bool)
val_mask = torch.zeros(n, dtype=torch.bool)
test_mask = torch.zeros(n, dtype=torch.bool)
train_mask[idx[:1200]] = True
val_mask[idx[1200:1600]] = True
test_mask[idx[1600:]] = True
print(f"Data(x={list(data['x'].shape)}, edge_index={list(data['edge_index'].shape)}, "
      f"y=[{data['y'].numel()}], train={int(train_mask.sum())}, val={int(val_mask.sum())}, "
      f"test={int(test_mask.sum())})")

row, col = data['edge_index']
loop = torch.arange(n)
row, col = torch.cat([row, loop]), torch.cat([col, loop])
deg = torch.bincount(row, minlength=n).float()
w = deg[row].pow(-0.5) * deg[col].pow(-0.5)
A = torch.sparse_coo_tensor(torch.stack([row, col]), w, (n, n)).coalesce()


class GCN(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.lin1 = torch.nn.Linear(in_channels, hidden_channels)
        self.lin2 = torch.nn.Linear(hidden_channels, out_channels)

    def forward(self, x, A):
        x = F.dropout(x, p=0.5, training=self.training)
        x = torch.sparse.mm(A, self.lin1(x)).relu()
        x = F.dropout(x, p=0.5, training=self.training)
        return torch.sparse.mm(A, self.lin2(x))


model = GCN(data['x'].size(1), args.hidden_channels, int(data['y'].max()) + 1)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
x, y = data['x'], data['y']

best_val = test_at_best = 0.
for epoch in range(1, args.epochs + 1):
    model.train()
    optimizer.zero_grad()
    out = model(x, A)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    loss.backward()
    optimizer.step()

    model.eval()
    with torch.no_grad():
        out = model(x, A)
        val_loss = F.cross_entropy(out[val_mask], y[val_mask]).item()
        pred = out.argmax(-1)
    train_acc = (pred[train_mask] == y[train_mask]).float().mean().item()
    val_acc = (pred[val_mask] == y[val_mask]).float().mean().item()
    test_acc = (pred[test_mask] == y[test_mask]).float().mean().item()
    if val_acc > best_val:
        best_val, test_at_best = val_acc, test_acc
    print(f'Epoch: {epoch:03d}, Loss: {loss.item():.4f}, Val Loss: {val_loss:.4f}, '
          f'Train: {train_acc:.4f}, Val: {val_acc:.4f}, Test: {test_acc:.4f}')

print(f'Best Val: {best_val:.4f}, Test @ best val: {test_at_best:.4f}')
