import argparse

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--num_nodes', type=int, default=1200)
parser.add_argument('--emb_dim', type=int, default=32)
parser.add_argument('--hidden_channels', type=int, default=128)
parser.add_argument('--out_channels', type=int, default=64)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--epochs', type=int, default=200)
parser.add_argument('--seed', type=int, default=1)
parser.add_argument('--val_ratio', type=float, default=0.05)
parser.add_argument('--test_ratio', type=float, default=0.1)
args = parser.parse_args()
print(args)
torch.set_num_threads(1)
torch.manual_seed(args.seed)

# ---- data: stochastic block model, random link split ----
g = torch.Generator().manual_seed(11)
n = args.num_nodes
block = torch.randint(0, 40, (n,), generator=g)
P = torch.where(block[:, None] == block[None, :], torch.tensor(0.25), torch.tensor(0.0001))
adj = torch.bernoulli(P, generator=g).triu(1)
edges = adj.nonzero()
edges = edges[torch.randperm(edges.size(0), generator=g)]
n_val, n_test = int(args.val_ratio * edges.size(0)), int(args.test_ratio * edges.size(0))
val_pos, test_pos, train_pos = edges[:n_val], edges[n_val:n_val + n_test], edges[n_val + n_test:]


def sample_negatives(num, gen=None):
    src = torch.randint(0, n, (num,), generator=gen)
    dst = torch.randint(0, n, (num,), generator=gen)
    return torch.stack([src, dst], 1)


val_neg = sample_negatives(n_val, g)
test_neg = sample_negatives(n_test, g)
print(f'Data(num_nodes={n}, train_pos_edge_index=[2, {train_pos.size(0)}], '
      f'val_pos_edge_index=[2, {n_val}], test_pos_edge_index=[2, {n_test}])')

A = torch.zeros(n, n)
A[train_pos[:, 0], train_pos[:, 1]] = 1
A = A + A.t() + torch.eye(n)
dinv = A.sum(1).pow(-0.5)
A = (dinv[:, None] * A * dinv[None, :]).to_sparse()


class Net(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.emb = torch.nn.Embedding(n, in_channels)
        self.lin1 = torch.nn.Linear(in_channels, hidden_channels)
        self.lin2 = torch.nn.Linear(hidden_channels, out_channels)
        self.pred = torch.nn.Sequential(
            torch.nn.Linear(out_channels, hidden_channels), torch.nn.ReLU(),
            torch.nn.Linear(hidden_channels, hidden_channels), torch.nn.ReLU(),
            torch.nn.Linear(hidden_channels, 1))

    def encode(self):
        x = self.emb.weight
        x = torch.sparse.mm(A, self.lin1(x)).relu()
        return torch.sparse.mm(A, self.lin2(x))

    def decode(self, z, pairs):
        return self.pred(z[pairs[:, 0]] * z[pairs[:, 1]]).view(-1)


def bce(logits, labels):
    p = torch.sigmoid(logits)
    return -(labels * torch.log(p) + (1 - labels) * torch.log(1 - p)).mean()


def roc_auc(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    greater = (pos[:, None] > neg[None, :]).float().mean()
    ties = (pos[:, None] == neg[None, :]).float().mean()
    return (greater + 0.5 * ties).item()


model = Net(args.emb_dim, args.hidden_channels, args.out_channels)
optimizer = torch.optim.Adam(params=model.parameters(), lr=args.lr)


def train():
    model.train()
    optimizer.zero_grad()
    z = model.encode()
    neg = sample_negatives(train_pos.size(0))
    pairs = torch.cat([train_pos, neg], 0)
    labels = torch.cat([torch.ones(train_pos.size(0)), torch.zeros(neg.size(0))])
    out = model.decode(z, pairs)
    loss = bce(out, labels)
    loss.backward()
    optimizer.step()
    return loss


@torch.no_grad()
def test(pos, neg):
    model.eval()
    z = model.encode()
    pairs = torch.cat([pos, neg], 0)
    labels = torch.cat([torch.ones(pos.size(0)), torch.zeros(neg.size(0))])
    return roc_auc(model.decode(z, pairs).sigmoid(), labels)


best_val_auc = final_test_auc = 0
for epoch in range(1, args.epochs + 1):
    loss = train()
    val_auc = test(val_pos, val_neg)
    test_auc = test(test_pos, test_neg)
    if val_auc > best_val_auc:
        best_val_auc = val_auc
        final_test_auc = test_auc
    print(f'Epoch: {epoch:03d}, Loss: {loss:.4f}, Val: {val_auc:.4f}, '
          f'Test: {test_auc:.4f}')

print(f'Final Test: {final_test_auc:.4f}')
