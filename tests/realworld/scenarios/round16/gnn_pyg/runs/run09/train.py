import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def er_graph(n, p, rng):
    a = np.triu(rng.random((n, n)) < p, 1)
    return np.argwhere(a)


def ba_graph(n, m, rng):
    edges, targets = [], list(range(m))
    repeated = []
    for v in range(m, n):
        for t in set(targets):
            edges.append((t, v))
        repeated.extend(targets)
        repeated.extend([v] * m)
        targets = list(rng.choice(repeated, m))
    return np.array(edges).reshape(-1, 2)


def geometric_graph(n, r, rng):
    pos = rng.random((n, 2))
    d = np.linalg.norm(pos[:, None] - pos[None, :], axis=-1)
    a = np.triu(d < r, 1)
    return np.argwhere(a)


def make_dataset(num_graphs, seed):
    rng = np.random.default_rng(seed)
    graphs = []
    for i in range(num_graphs):
        label = i % 3
        n = int(rng.integers(12, 31))
        if label == 0:
            e = er_graph(n, 4.0 / n, rng)
        elif label == 1:
            e = ba_graph(n, 2, rng)
        else:
            e = geometric_graph(n, np.sqrt(4.0 / (np.pi * n)), rng)
        e = np.concatenate([e, e[:, ::-1]], 0)
        deg = np.bincount(e[:, 0], minlength=n) if len(e) else np.zeros(n, dtype=int)
        feat = np.eye(8)[np.minimum(deg, 7)]
        graphs.append((torch.tensor(feat, dtype=torch.float),
                       torch.tensor(e.T.copy(), dtype=torch.long).view(2, -1), label))
    return graphs


def collate(samples):
    xs, eis, batch, labels, offset = [], [], [], [], 0
    for i, (x, ei, y) in enumerate(samples):
        xs.append(x)
        eis.append(ei + offset)
        batch.append(torch.full((x.size(0),), i, dtype=torch.long))
        labels.append(y)
        offset += x.size(0)
    return torch.cat(xs), torch.cat(eis, 1), torch.cat(batch), torch.tensor(labels)


class GINConv(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, out_dim), nn.BatchNorm1d(out_dim), nn.ReLU(),
                                 nn.Linear(out_dim, out_dim))
        self.eps = nn.Parameter(torch.zeros(1))

    def forward(self, x, edge_index):
        agg = torch.zeros_like(x).index_add_(0, edge_index[1], x[edge_index[0]])
        return self.mlp((1 + self.eps) * x + agg)


class GIN(nn.Module):
    def __init__(self, in_dim, hidden_dim, n_classes, n_layers, dropout):
        super().__init__()
        self.convs = nn.ModuleList()
        self.bns = nn.ModuleList()
        for i in range(n_layers):
            self.convs.append(GINConv(in_dim if i == 0 else hidden_dim, hidden_dim))
            self.bns.append(nn.BatchNorm1d(hidden_dim))
        self.heads = nn.ModuleList([nn.Linear(in_dim, n_classes)] +
                                   [nn.Linear(hidden_dim, n_classes) for _ in range(n_layers)])
        self.dropout = dropout

    def forward(self, x, edge_index, batch, num_graphs):
        hs = [x]
        h = x
        for conv, bn in zip(self.convs, self.bns):
            h = F.relu(bn(conv(h, edge_index)))
            hs.append(h)
        score = 0
        for h, head in zip(hs, self.heads):
            pooled = torch.zeros(num_graphs, h.size(1)).index_add_(0, batch, h)
            pooled = pooled / torch.bincount(batch, minlength=num_graphs).clamp(min=1)[:, None]
            score = score + F.dropout(head(pooled), self.dropout, self.training)
        return score


def evaluate(model, graphs, batch_size):
    model.eval()
    correct, total_loss = 0, 0.
    with torch.no_grad():
        for i in range(0, len(graphs), batch_size):
            x, ei, b, y = collate(graphs[i:i + batch_size])
            out = model(x, ei, b, y.numel())
            total_loss += F.cross_entropy(out, y, reduction='sum').item()
            correct += (out.argmax(1) == y).sum().item()
    return correct / len(graphs), total_loss / len(graphs)


def main(args):
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    dataset = make_dataset(660, seed=17)
    random.shuffle(dataset)
    train_set, val_set, test_set = dataset[:480], dataset[480:540], dataset[540:]
    print(f"# graphs: train {len(train_set)}, val {len(val_set)}, test {len(test_set)}")

    model = GIN(8, args.hidden_dim, 3, args.num_layers, args.final_dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.5)

    for epoch in range(args.epochs):
        model.train()
        random.shuffle(train_set)
        losses, correct = [], 0
        for i in range(0, len(train_set), args.batch_size):
            x, ei, b, y = collate(train_set[i:i + args.batch_size])
            out = model(x, ei, b, y.numel())
            loss = F.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            correct += (out.argmax(1) == y).sum().item()
        scheduler.step()
        train_acc = correct / len(train_set)
        val_acc, val_loss = evaluate(model, val_set, 64)
        print(f"Epoch {epoch:05d} | Loss {np.mean(losses):.4f} | Train Acc {train_acc:.4f} | "
              f"Val Loss {val_loss:.4f} | Val Acc {val_acc:.4f}")

    test_acc, _ = evaluate(model, test_set, 64)
    print(f"Test Acc {test_acc:.4f}")


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='GIN')
    parser.add_argument('--batch_size', type=int, default=8)
    parser.add_argument('--num_layers', type=int, default=3)
    parser.add_argument('--hidden_dim', type=int, default=32)
    parser.add_argument('--final_dropout', type=float, default=0.5)
    parser.add_argument('--lr', type=float, default=0.0001)
    parser.add_argument('--epochs', type=int, default=60)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    print(args)
    torch.set_num_threads(1)
    main(args)
