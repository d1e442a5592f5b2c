import argparse
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

ATOMS = {  # symbol: (atomic number, mass, typical valence)
    'C': (6, 12.011, 4), 'N': (7, 14.007, 3), 'O': (8, 15.999, 2),
    'F': (9, 18.998, 1), 'S': (16, 32.06, 2), 'Cl': (17, 35.45, 1), 'Br': (35, 79.904, 1),
}
SYMBOLS = list(ATOMS)
CONTRIB = {'C': 0.15, 'N': -0.45, 'O': -0.6, 'F': 0.35, 'S': 0.4, 'Cl': 0.7, 'Br': 0.85}


def random_molecule(rng):
    n = rng.randint(8, 26)
    syms = rng.choices(SYMBOLS, weights=[60, 12, 14, 4, 4, 4, 2], k=n)
    edges = []
    for i in range(1, n):
        edges.append((rng.randrange(i), i))
    for _ in range(rng.randint(0, 2)):
        a, b = rng.sample(range(n), 2)
        if (a, b) not in edges and (b, a) not in edges:
            edges.append((a, b))
    deg = [0] * n
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
    feats, target = [], 0.0
    for i, s in enumerate(syms):
        z, mass, val = ATOMS[s]
        num_h = max(val - deg[i], 0)
        charge = rng.gauss(0.0, 0.15) + (-0.3 if s in ('N', 'O') else 0.05)
        pos = [rng.gauss(0.0, 150.0 * math.sqrt(n)) for _ in range(3)]
        feats.append([z, mass, num_h, deg[i], charge] + pos)
        target += CONTRIB[s] - 1.5 * charge - 0.08 * num_h
    target += 0.3 * (len(edges) - (n - 1))
    return torch.tensor(feats), torch.tensor(edges).t(), target


class MolDataset:
    def __init__(self, num, seed):
        rng = random.Random(seed)
        self.graphs = [random_molecule(rng) for _ in range(num)]

    def __len__(self):
        return len(self.graphs)

    def batches(self, idx, batch_size, shuffle=False):
        idx = list(idx)
        if shuffle:
            random.shuffle(idx)
        for s in range(0, len(idx), batch_size):
            xs, eis, bs, ys, off = [], [], [], [], 0
            for j, k in enumerate(idx[s:s + batch_size]):
                x, ei, y = self.graphs[k]
                xs.append(x)
                eis.append(torch.cat([ei, ei.flip(0)], 1) + off)
                bs.append(torch.full((x.size(0),), j))
                ys.append(y)
                off += x.size(0)
            yield torch.cat(xs), torch.cat(eis, 1), torch.cat(bs), torch.tensor(ys)


class GINConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, h, edge_index):
        agg = torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]])
        return self.mlp(h + agg)


class GNN(nn.Module):
    def __init__(self, in_dim, emb_dim, num_layer):
        super().__init__()
        self.encoder = nn.Linear(in_dim, emb_dim)
        self.convs = nn.ModuleList([GINConv(emb_dim) for _ in range(num_layer)])
        self.head = nn.Linear(emb_dim, 1)

    def forward(self, x, edge_index, batch, num_graphs):
        h = self.encoder(x)
        for i, conv in enumerate(self.convs):
            h = conv(h, edge_index)
            if i < len(self.convs) - 1:
                h = F.relu(h)
        hg = torch.zeros(num_graphs, h.size(1)).index_add_(0, batch, h)
        return self.head(hg).view(-1)


class Evaluator:
    def eval(self, input_dict):
        return {'mae': (input_dict['y_pred'] - input_dict['y_true']).abs().mean().item()}


@torch.no_grad()
def eval_split(model, dataset, idx, evaluator):
    model.eval()
    y_true, y_pred = [], []
    for x, ei, b, y in dataset.batches(idx, 256):
        y_pred.append(model(x, ei, b, y.numel()))
        y_true.append(y)
    return evaluator.eval({'y_true': torch.cat(y_true), 'y_pred': torch.cat(y_pred)})


def main():
    parser = argparse.ArgumentParser(description='GNN baselines on synthetic mol regression')
    parser.add_argument('--num_layer', type=int, default=3)
    parser.add_argument('--emb_dim', type=int, default=64)
    parser.add_argument('--batch_size', type=int, default=32)
    parser.add_argument('--lr', type=float, default=0.001)
    parser.add_argument('--epochs', type=int, default=30)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args()
    print(args)
    torch.set_num_threads(1)
    random.seed(args.seed)
    torch.manual_seed(args.seed)

    dataset = MolDataset(1500, seed=123)
    split_idx = {'train': range(0, 1200), 'valid': range(1200, 1350), 'test': range(1350, 1500)}
    ys = torch.tensor([g[2] for g in dataset.graphs])
    print(f'#graphs {len(dataset)}  node feature dim {dataset.graphs[0][0].size(1)}  '
          f'target mean {ys.mean():.3f} std {ys.std():.3f}')
    model = GNN(dataset.graphs[0][0].size(1), args.emb_dim, args.num_layer)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    evaluator = Evaluator()

    valid_curve, test_curve, train_curve = [], [], []
    for epoch in range(1, args.epochs + 1):
        print(f'=====Epoch {epoch}')
        print('Training...')
        model.train()
        losses, gnorms = [], []
        for x, ei, b, y in dataset.batches(split_idx['train'], args.batch_size, shuffle=True):
            pred = model(x, ei, b, y.numel())
            loss = F.l1_loss(pred, y)
            optimizer.zero_grad()
            loss.backward()
            gnorms.append(model.encoder.weight.grad.norm().item())
            optimizer.step()
            losses.append(loss.item())
        print(f'loss: {sum(losses) / len(losses):.4f}  encoder grad norm (mean/max): '
              f'{sum(gnorms) / len(gnorms):.3f}/{max(gnorms):.3f}')
        print('Evaluating...')
        train_perf = eval_split(model, dataset, split_idx['train'], evaluator)
        valid_perf = eval_split(model, dataset, split_idx['valid'], evaluator)
        test_perf = eval_split(model, dataset, split_idx['test'], evaluator)
        print({'Train': train_perf, 'Validation': valid_perf, 'Test': test_perf})
        train_curve.append(train_perf['mae'])
        valid_curve.append(valid_perf['mae'])
        test_curve.append(test_perf['mae'])

    best_val_epoch = min(range(len(valid_curve)), key=lambda i: valid_curve[i])
    print('Finished training!')
    print(f'Best validation score: {valid_curve[best_val_epoch]}')
    print(f'Test score: {test_curve[best_val_epoch]}')


if __name__ == '__main__':
    main()
