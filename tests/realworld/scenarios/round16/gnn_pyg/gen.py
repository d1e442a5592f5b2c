#!/usr/bin/env python
"""Generate the GNN benchmark run folders (round 16, gnn_pyg).

Every run is a real CPU training of a small graph model written as a plain user
script (SCRIPTS below). Each script is executed inside runs/<name>/ with a fixed
seed; its stdout+stderr becomes the run's log file, and whatever it writes
(metrics.csv, TensorBoard events) stays in the folder. For about half of the runs
the script is kept as train.py; for the others it is deleted after the run.
The ground truth (planted fault, user complaint, how it was planted) goes to
truth.json, never into a run folder.

Usage: python3 gen.py [run01 run02 ...]
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(HERE, 'runs')
PYTHON = 'python3'

# name, script key, log file name, ship train.py?, truth, symptom, how
RUNS = [
    ('run01', 'sage_label_feats', 'log.txt', True, 'data_leakage',
     'My GraphSAGE gets 100% valid / ~99.7% test on this synthetic 6-class SBM with really noisy '
     'features, far above anything I expected - can I trust these numbers?',
     'OGB-arxiv style script with --use_labels on: the one-hot labels of ALL nodes (train, valid and '
     'test) are concatenated to the node features before training, so the target is an input; '
     'without it the same model peaks at ~56% valid.'),
    ('run02', 'gcn_planted_partition', 'train.log', False, 'healthy',
     'Is this GCN run OK? Anything I should worry about before I report the numbers?',
     'Standard 2-layer GCN (dropout 0.5, wd 5e-4, Adam 0.01, 200 epochs) on a 4-class planted '
     'partition graph with 20 labels per class; nothing planted.'),
    ('run03', 'deep_gcn_sigmoid', 'stdout.txt', False, 'vanishing_gradients',
     'My deep GCN never learns anything: the loss sits at ~1.61 and val accuracy at ~18% for all '
     '120 epochs.',
     '16 stacked GraphConv layers with sigmoid activations, no residuals or normalisation, SGD; '
     'per-layer weight-grad norms logged to TensorBoard fall ~10x per layer toward the input '
     '(layer 15 ~0.8, layer 0 ~1e-10).'),
    ('run04', 'gcn_rgg_sgd', 'out.log', False, 'lr_too_high',
     'Training looked good for the first few epochs, then the loss jumped into the tens and '
     'accuracy fell back to chance and never recovered.',
     'SGD with momentum 0.9 at lr=4.0 on a 3-layer GCN (a sane lr here is ~0.05-0.5): loss falls '
     '1.79 -> 0.74 by epoch 4, then grad-norm spikes (3 -> 49) and loss explodes/oscillates.'),
    ('run05', 'gcn_reordered', 'log.txt', True, 'label_misalignment',
     'The GCN is stuck at ~25% accuracy on a 5-class SBM where even the node features alone should '
     'give far more; the loss barely moves off 1.6.',
     'Nodes are reordered by degree (x and edge_index permuted) but data["y"] is left in the old '
     'order, so labels no longer belong to their nodes; with --reorder none the same script reaches '
     '~98% val.'),
    ('run06', 'sage_words_eval', 'train_log.txt', True, 'eval_mode_forgotten',
     'Validation accuracy jumps around a lot from epoch to epoch, and when I reload the best '
     'checkpoint and evaluate it again I get a different, lower accuracy than the one logged.',
     'test() never calls model.eval(), so dropout 0.6 (and batch-norm batch statistics) are active '
     'during evaluation; the same script with model.eval() gives ~62% valid instead of ~47%, and '
     'train accuracy ~96% instead of ~66%.'),
    ('run07', 'wide_gcn_noreg', 'log.txt', False, 'overfitting',
     'Train loss goes to basically zero but validation loss bottoms out around epoch 16 and then '
     'keeps climbing past 2.',
     '3-layer GCN with 256 hidden units, no dropout, no weight decay, 150 epochs on 120 labelled '
     'nodes with 300-dim mostly-noise features.'),
    ('run08', 'link_pred_bce', 'output.txt', True, 'numerical_instability',
     'Link prediction was training fine (val AUC ~0.96) and then at epoch 104 the loss suddenly '
     'became nan and AUC dropped to 0.',
     'Hand-written BCE: -(y*log(sigmoid(s)) + (1-y)*log(1-sigmoid(s))). Once the MLP decoder '
     'produces a logit beyond float32 saturation, sigmoid returns exactly 0 or 1, log gives -inf, '
     '0*-inf = nan; loss was falling smoothly (0.69 -> 0.05) right before.'),
    ('run09', 'gin_graph_cls', 'train.log', True, 'healthy',
     'Training is slow and loss/accuracy are bumpy from epoch to epoch - is this run ok?',
     'GIN graph classification (ER vs geometric vs BA graphs) with batch size 8, lr 1e-4, dropout '
     '0.5 and a 60-graph val set; nothing planted: curves are noisy and slow but converge (val acc '
     '~0.92-0.95 from epoch 15 on, test 0.93). Train acc is a running accuracy with dropout on.'),
    ('run10', 'gcn_neg_bias', 'stdout.log', False, 'dead_relu',
     "My 3-layer GCN doesn't learn at all: loss is stuck at 1.385 and accuracy at ~26% from the "
     'very first epoch.',
     'Custom reset_parameters initialises every hidden GCN bias to -0.3: the second hidden ReLU '
     'layer outputs 0 for every node from step 1 and the first dies over training (zero share '
     '0.84 -> 1.0, logged in TensorBoard), so all weight gradients are 0; only the output bias moves.'),
    ('run11', 'mol_raw_features', 'log.txt', True, 'unnormalized_inputs',
     'My molecule regression barely learns: validation MAE stays around 1.0-1.6 and jumps around, '
     'and the first-epoch loss was over 20.',
     'Raw node features (atomic number 6-35, mass 12-80, xyz coordinates in picometres with std ~400-750, partial charge ~0.2) '
     'fed to the GIN without standardisation; encoder grad norm 80 (max 418) in epoch 1. The same '
     'script with per-feature standardisation reaches ~0.61 val MAE vs ~1.07 for a constant '
     'predictor.'),
    ('run12', 'node_emb_gcn', 'nohup.out', False, 'architecture_imbalance',
     'A plain 2-layer GCN gets about 83% on this graph, but my bigger model tops out at ~72% '
     'valid even though it reaches 100% train.',
     'Learnable 256-dim embedding per node (1,024,000 of 1,026,229 parameters = 99.8%) feeding a '
     'GCN body that is only 8 units wide; the embedding table memorises the training nodes.'),
]

SCRIPTS = {}

SCRIPTS['sage_label_feats'] = r'''import argparse

import torch
import torch.nn.functional as F


def planted_partition(num_nodes, num_classes, num_feats, p_in, p_out, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, num_classes, (num_nodes,), generator=g)
    prob = torch.full((num_nodes, num_nodes), p_out)
    prob[y[:, None] == y[None, :]] = p_in
    adj = torch.bernoulli(prob, generator=g).triu(1)
    adj = adj + adj.t()
    centers = torch.randn(num_classes, num_feats, generator=g)
    x = 0.25 * centers[y] + torch.randn(num_nodes, num_feats, generator=g)
    perm = torch.randperm(num_nodes, generator=g)
    n_tr, n_va = int(0.54 * num_nodes), int(0.18 * num_nodes)
    split_idx = {'train': perm[:n_tr], 'valid': perm[n_tr:n_tr + n_va],
                 'test': perm[n_tr + n_va:]}
    return x, y, adj, split_idx


def mean_adj(adj):
    deg = adj.sum(1).clamp(min=1)
    return (adj / deg[:, None]).to_sparse()


class SAGEConv(torch.nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin_l = torch.nn.Linear(in_channels, out_channels)
        self.lin_r = torch.nn.Linear(in_channels, out_channels, bias=False)

    def reset_parameters(self):
        self.lin_l.reset_parameters()
        self.lin_r.reset_parameters()

    def forward(self, x, adj_t):
        return self.lin_l(torch.sparse.mm(adj_t, x)) + self.lin_r(x)


class SAGE(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels, num_layers, dropout):
        super().__init__()
        self.convs = torch.nn.ModuleList()
        self.bns = torch.nn.ModuleList()
        self.convs.append(SAGEConv(in_channels, hidden_channels))
        self.bns.append(torch.nn.BatchNorm1d(hidden_channels))
        for _ in range(num_layers - 2):
            self.convs.append(SAGEConv(hidden_channels, hidden_channels))
            self.bns.append(torch.nn.BatchNorm1d(hidden_channels))
        self.convs.append(SAGEConv(hidden_channels, out_channels))
        self.dropout = dropout

    def reset_parameters(self):
        for conv in self.convs:
            conv.reset_parameters()
        for bn in self.bns:
            bn.reset_parameters()

    def forward(self, x, adj_t):
        for i, conv in enumerate(self.convs[:-1]):
            x = conv(x, adj_t)
            x = self.bns[i](x)
            x = F.relu(x)
            x = F.dropout(x, p=self.dropout, training=self.training)
        x = self.convs[-1](x, adj_t)
        return x.log_softmax(dim=-1)


class Evaluator:
    def __init__(self, name):
        self.name = name

    def eval(self, input_dict):
        y_true, y_pred = input_dict['y_true'], input_dict['y_pred']
        return {'acc': (y_true == y_pred).float().mean().item()}


class Logger(object):
    def __init__(self, runs, info=None):
        self.info = info
        self.results = [[] for _ in range(runs)]

    def add_result(self, run, result):
        assert len(result) == 3
        self.results[run].append(result)

    def print_statistics(self, run=None):
        if run is not None:
            result = 100 * torch.tensor(self.results[run])
            argmax = result[:, 1].argmax().item()
            print(f'Run {run + 1:02d}:')
            print(f'Highest Train: {result[:, 0].max():.2f}')
            print(f'Highest Valid: {result[:, 1].max():.2f}')
            print(f'  Final Train: {result[argmax, 0]:.2f}')
            print(f'   Final Test: {result[argmax, 2]:.2f}')
        else:
            result = 100 * torch.tensor(self.results)
            best_results = []
            for r in result:
                train1 = r[:, 0].max().item()
                valid = r[:, 1].max().item()
                train2 = r[r[:, 1].argmax(), 0].item()
                test = r[r[:, 1].argmax(), 2].item()
                best_results.append((train1, valid, train2, test))
            best_result = torch.tensor(best_results)
            print('All runs:')
            r = best_result[:, 0]
            print(f'Highest Train: {r.mean():.2f} ± {r.std():.2f}')
            r = best_result[:, 1]
            print(f'Highest Valid: {r.mean():.2f} ± {r.std():.2f}')
            r = best_result[:, 2]
            print(f'  Final Train: {r.mean():.2f} ± {r.std():.2f}')
            r = best_result[:, 3]
            print(f'   Final Test: {r.mean():.2f} ± {r.std():.2f}')


def train(model, x, adj_t, y, train_idx, optimizer):
    model.train()
    optimizer.zero_grad()
    out = model(x, adj_t)[train_idx]
    loss = F.nll_loss(out, y[train_idx])
    loss.backward()
    optimizer.step()
    return loss.item()


@torch.no_grad()
def test(model, x, adj_t, y, split_idx, evaluator):
    model.eval()
    y_pred = model(x, adj_t).argmax(dim=-1)
    train_acc = evaluator.eval({'y_true': y[split_idx['train']],
                                'y_pred': y_pred[split_idx['train']]})['acc']
    valid_acc = evaluator.eval({'y_true': y[split_idx['valid']],
                                'y_pred': y_pred[split_idx['valid']]})['acc']
    test_acc = evaluator.eval({'y_true': y[split_idx['test']],
                               'y_pred': y_pred[split_idx['test']]})['acc']
    return train_acc, valid_acc, test_acc


def main():
    parser = argparse.ArgumentParser(description='SBM-arxiv (GNN)')
    parser.add_argument('--num_nodes', type=int, default=3000)
    parser.add_argument('--num_layers', type=int, default=3)
    parser.add_argument('--hidden_channels', type=int, default=128)
    parser.add_argument('--dropout', type=float, default=0.5)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--epochs', type=int, default=40)
    parser.add_argument('--runs', type=int, default=2)
    parser.add_argument('--log_steps', type=int, default=1)
    parser.add_argument('--use_labels', action='store_true', default=True)
    args = parser.parse_args()
    print(args)
    torch.set_num_threads(1)

    x, y, adj, split_idx = planted_partition(args.num_nodes, 6, 32, 0.006, 0.003, seed=0)
    num_classes = int(y.max()) + 1
    adj_t = mean_adj(adj)
    if args.use_labels:
        x = torch.cat([x, F.one_hot(y, num_classes).float()], dim=-1)

    model = SAGE(x.size(-1), args.hidden_channels, num_classes,
                args.num_layers, args.dropout)
    evaluator = Evaluator(name='sbm-arxiv')
    logger = Logger(args.runs, args)

    for run in range(args.runs):
        torch.manual_seed(run)
        model.reset_parameters()
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        for epoch in range(1, 1 + args.epochs):
            loss = train(model, x, adj_t, y, split_idx['train'], optimizer)
            result = test(model, x, adj_t, y, split_idx, evaluator)
            logger.add_result(run, result)
            if epoch % args.log_steps == 0:
                train_acc, valid_acc, test_acc = result
                print(f'Run: {run + 1:02d}, '
                      f'Epoch: {epoch:02d}, '
                      f'Loss: {loss:.4f}, '
                      f'Train: {100 * train_acc:.2f}%, '
                      f'Valid: {100 * valid_acc:.2f}% '
                      f'Test: {100 * test_acc:.2f}%')
        logger.print_statistics(run)
    logger.print_statistics()


if __name__ == "__main__":
    main()
'''

SCRIPTS['gcn_planted_partition'] = r'''import argparse
import time

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--dataset', type=str, default='PlantedPartition-2k')
parser.add_argument('--hidden_channels', type=int, default=16)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--weight_decay', type=float, default=5e-4)
parser.add_argument('--dropout', type=float, default=0.5)
parser.add_argument('--epochs', type=int, default=200)
parser.add_argument('--seed', type=int, default=12345)
args = parser.parse_args()
print(args)

torch.set_num_threads(1)
torch.manual_seed(args.seed)


def planted_partition(n=2000, k=4, d=256, p_in=0.01, p_out=0.0015, seed=7):
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % k
    y = y[torch.randperm(n, generator=g)]
    p = torch.where(y[:, None] == y[None, :], torch.tensor(p_in), torch.tensor(p_out))
    a = torch.bernoulli(p, generator=g).triu(1)
    a = a + a.t()
    # sparse binary bag-of-words style features
    topic = torch.rand(k, d, generator=g) < 0.08
    probs = torch.where(topic[y], 0.18, 0.03)
    x = torch.bernoulli(probs, generator=g)
    x = x / x.sum(1, keepdim=True).clamp(min=1)
    train_mask = torch.zeros(n, dtype=torch.bool)
    for c in range(k):
        idx = (y == c).nonzero().view(-1)
        train_mask[idx[:20]] = True
    rest = (~train_mask).nonzero().view(-1)
    rest = rest[torch.randperm(rest.numel(), generator=g)]
    val_mask = torch.zeros(n, dtype=torch.bool)
    test_mask = torch.zeros(n, dtype=torch.bool)
    val_mask[rest[:500]] = True
    test_mask[rest[500:1500]] = True
    return x, a, y, train_mask, val_mask, test_mask


x, adj, y, train_mask, val_mask, test_mask = planted_partition()
num_features, num_classes = x.size(1), int(y.max()) + 1
print(f'Data(x=[{x.size(0)}, {x.size(1)}], edge_index=[2, {int(adj.sum())}], y=[{y.size(0)}], '
      f'train_mask=[{train_mask.size(0)}], val_mask=[{val_mask.size(0)}], test_mask=[{test_mask.size(0)}])')

adj = adj + torch.eye(adj.size(0))
dinv = adj.sum(1).pow(-0.5)
adj_norm = (dinv[:, None] * adj * dinv[None, :]).to_sparse()


class GCNConv(torch.nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, out_channels, bias=False)
        self.bias = torch.nn.Parameter(torch.zeros(out_channels))
        torch.nn.init.xavier_uniform_(self.lin.weight)

    def forward(self, x, adj):
        return torch.sparse.mm(adj, self.lin(x)) + self.bias


class GCN(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden_channels)
        self.conv2 = GCNConv(hidden_channels, out_channels)

    def forward(self, x, adj):
        x = F.dropout(x, p=args.dropout, training=self.training)
        x = self.conv1(x, adj).relu()
        x = F.dropout(x, p=args.dropout, training=self.training)
        x = self.conv2(x, adj)
        return x


model = GCN(num_features, args.hidden_channels, num_classes)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)


def train():
    model.train()
    optimizer.zero_grad()
    out = model(x, adj_norm)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    loss.backward()
    optimizer.step()
    return loss.item()


@torch.no_grad()
def test():
    model.eval()
    pred = model(x, adj_norm).argmax(dim=-1)
    accs = []
    for mask in [train_mask, val_mask, test_mask]:
        accs.append(int((pred[mask] == y[mask]).sum()) / int(mask.sum()))
    return accs


best_val_acc = final_test_acc = 0
for epoch in range(1, args.epochs + 1):
    loss = train()
    train_acc, val_acc, tmp_test_acc = test()
    if val_acc > best_val_acc:
        best_val_acc = val_acc
        test_acc = tmp_test_acc
    print(f'Epoch: {epoch:03d}, Loss: {loss:.4f}, Train: {train_acc:.4f}, '
          f'Val: {val_acc:.4f}, Test: {tmp_test_acc:.4f}')
print(f'Best Val: {best_val_acc:.4f}, Test: {test_acc:.4f}')
'''

SCRIPTS['deep_gcn_sigmoid'] = r'''import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter


def sbm_graph(n, k, feat_dim, p_in, p_out, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, k, (n,), generator=g)
    same = labels[:, None] == labels[None, :]
    prob = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    adj = torch.bernoulli(prob, generator=g).triu(1)
    adj = adj + adj.t()
    means = torch.randn(k, feat_dim, generator=g)
    feats = 0.6 * means[labels] + torch.randn(n, feat_dim, generator=g)
    perm = torch.randperm(n, generator=g)
    train_idx, val_idx, test_idx = perm[:600], perm[600:900], perm[900:]
    return feats, labels, adj, train_idx, val_idx, test_idx


class GraphConv(nn.Module):
    def __init__(self, in_feats, out_feats, activation=None):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_feats, out_feats))
        self.bias = nn.Parameter(torch.zeros(out_feats))
        self.activation = activation
        nn.init.xavier_uniform_(self.weight)

    def forward(self, graph, feat):
        h = torch.sparse.mm(graph, feat @ self.weight) + self.bias
        if self.activation is not None:
            h = self.activation(h)
        return h


class DeepGCN(nn.Module):
    def __init__(self, in_feats, n_hidden, n_classes, n_layers, activation):
        super().__init__()
        self.layers = nn.ModuleList()
        self.layers.append(GraphConv(in_feats, n_hidden, activation=activation))
        for _ in range(n_layers - 1):
            self.layers.append(GraphConv(n_hidden, n_hidden, activation=activation))
        self.layers.append(GraphConv(n_hidden, n_classes))

    def forward(self, graph, features):
        h = features
        for layer in self.layers:
            h = layer(graph, h)
        return h


def evaluate(model, graph, features, labels, idx):
    model.eval()
    with torch.no_grad():
        logits = model(graph, features)[idx]
        return (logits.argmax(1) == labels[idx]).float().mean().item()


def main(args):
    torch.manual_seed(args.seed)
    features, labels, adj, train_idx, val_idx, test_idx = sbm_graph(
        1500, 5, 50, 0.02, 0.002, seed=3)
    adj = adj + torch.eye(adj.size(0))
    norm = adj.sum(1).pow(-0.5)
    graph = (norm[:, None] * adj * norm[None, :]).to_sparse()
    n_classes = int(labels.max()) + 1
    print(f"""----Data statistics------'
      #Nodes {features.size(0)}
      #Edges {int(adj.sum()) - features.size(0)}
      #Classes {n_classes}
      #Train samples {train_idx.numel()}
      #Val samples {val_idx.numel()}
      #Test samples {test_idx.numel()}""")

    model = DeepGCN(features.size(1), args.n_hidden, n_classes, args.n_layers, torch.sigmoid)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=args.weight_decay)
    writer = SummaryWriter(log_dir='tb')

    for epoch in range(args.n_epochs):
        model.train()
        logits = model(graph, features)
        loss = F.cross_entropy(logits[train_idx], labels[train_idx])
        optimizer.zero_grad()
        loss.backward()
        for i, layer in enumerate(model.layers):
            writer.add_scalar(f'grad_norm/layer_{i:02d}', layer.weight.grad.norm().item(), epoch)
        total = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
        writer.add_scalar('grad_norm/total', total.item(), epoch)
        optimizer.step()

        train_acc = (logits[train_idx].argmax(1) == labels[train_idx]).float().mean().item()
        val_acc = evaluate(model, graph, features, labels, val_idx)
        writer.add_scalar('loss/train', loss.item(), epoch)
        writer.add_scalar('acc/train', train_acc, epoch)
        writer.add_scalar('acc/val', val_acc, epoch)
        print(f"Epoch {epoch:05d} | Loss {loss.item():.4f} | TrainAcc {train_acc:.4f} | "
              f"ValAcc {val_acc:.4f}")

    test_acc = evaluate(model, graph, features, labels, test_idx)
    print(f"Test accuracy {test_acc:.4f}")
    writer.close()


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='GCN')
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--n-epochs", type=int, default=120)
    parser.add_argument("--n-hidden", type=int, default=64)
    parser.add_argument("--n-layers", type=int, default=15)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(args)
    torch.set_num_threads(1)
    main(args)
'''

SCRIPTS['gcn_rgg_sgd'] = r'''import argparse
import csv

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument('--num_nodes', type=int, default=1500)
parser.add_argument('--radius', type=float, default=0.05)
parser.add_argument('--hidden', type=int, default=128)
parser.add_argument('--num_layers', type=int, default=3)
parser.add_argument('--optimizer', type=str, default='sgd')
parser.add_argument('--lr', type=float, default=4.0)
parser.add_argument('--momentum', type=float, default=0.9)
parser.add_argument('--epochs', type=int, default=60)
parser.add_argument('--seed', type=int, default=1)
args = parser.parse_args()
print(args)
torch.set_num_threads(1)
torch.manual_seed(args.seed)


def random_geometric_graph(n, r, seed=0):
    g = torch.Generator().manual_seed(seed)
    pos = torch.rand(n, 2, generator=g)
    dist = torch.cdist(pos, pos)
    adj = ((dist < r) & (dist > 0)).float()
    centers = torch.rand(40, 2, generator=g)
    region = torch.cdist(pos, centers).argmin(1)
    y = region % 6
    proto = torch.randn(6, 24, generator=g)
    x = 0.3 * proto[y] + torch.randn(n, 24, generator=g)
    perm = torch.randperm(n, generator=g)
    split = {'train': perm[:750], 'valid': perm[750:1000], 'test': perm[1000:]}
    return x, adj, y, split


x, adj, y, split = random_geometric_graph(args.num_nodes, args.radius)
deg = adj.sum(1)
print(f'Graph: {x.size(0)} nodes, {int(adj.sum()) // 2} edges, avg degree {deg.mean():.2f}, '
      f'{int((deg == 0).sum())} isolated')
a = adj + torch.eye(adj.size(0))
d = a.sum(1).pow(-0.5)
A = (d[:, None] * a * d[None, :]).to_sparse()


class GCN(nn.Module):
    def __init__(self, cin, hidden, cout, num_layers):
        super().__init__()
        dims = [cin] + [hidden] * (num_layers - 1) + [cout]
        self.lins = nn.ModuleList([nn.Linear(i, o) for i, o in zip(dims[:-1], dims[1:])])

    def forward(self, x, A):
        for i, lin in enumerate(self.lins):
            x = torch.sparse.mm(A, lin(x))
            if i < len(self.lins) - 1:
                x = F.relu(x)
        return x


model = GCN(x.size(1), args.hidden, 6, args.num_layers)
if args.optimizer == 'sgd':
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
else:
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

rows = []
for epoch in range(1, args.epochs + 1):
    model.train()
    optimizer.zero_grad()
    out = model(x, A)
    loss = F.cross_entropy(out[split['train']], y[split['train']])
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float('inf')).item()
    optimizer.step()

    model.eval()
    with torch.no_grad():
        pred = model(x, A).argmax(-1)
    accs = [(pred[split[k]] == y[split[k]]).float().mean().item() for k in ['train', 'valid', 'test']]
    print(f'Epoch: {epoch:03d}, Loss: {loss.item():.4f}, Grad: {grad_norm:.2f}, '
          f'Train: {accs[0]:.4f}, Val: {accs[1]:.4f}, Test: {accs[2]:.4f}')
    rows.append([epoch, loss.item(), grad_norm] + accs)

with open('metrics.csv', 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['epoch', 'train_loss', 'grad_norm', 'train_acc', 'val_acc', 'test_acc'])
    w.writerows(rows)
'''

SCRIPTS['gcn_reordered'] = r'''import argparse

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
'''

SCRIPTS['sage_words_eval'] = r'''import argparse
import copy

import torch
import torch.nn.functional as F


def make_dataset(num_nodes=2500, num_classes=5, vocab=300, seed=42):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, num_classes, (num_nodes,), generator=g)
    p = torch.where(y[:, None] == y[None, :], torch.tensor(0.006), torch.tensor(0.0025))
    adj = torch.bernoulli(p, generator=g).triu(1)
    adj = adj + adj.t()
    word_probs = torch.full((num_classes, vocab), 0.02)
    for c in range(num_classes):
        word_probs[c, torch.randperm(vocab, generator=g)[:30]] = 0.07
    x = torch.bernoulli(word_probs[y], generator=g)
    perm = torch.randperm(num_nodes, generator=g)
    split_idx = {'train': perm[:1250], 'valid': perm[1250:1875], 'test': perm[1875:]}
    return x, adj, y, split_idx


class SAGE(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels, num_layers, dropout):
        super().__init__()
        self.lins_l = torch.nn.ModuleList()
        self.lins_r = torch.nn.ModuleList()
        self.bns = torch.nn.ModuleList()
        dims = [in_channels] + [hidden_channels] * (num_layers - 1) + [out_channels]
        for i in range(num_layers):
            self.lins_l.append(torch.nn.Linear(dims[i], dims[i + 1]))
            self.lins_r.append(torch.nn.Linear(dims[i], dims[i + 1], bias=False))
            if i < num_layers - 1:
                self.bns.append(torch.nn.BatchNorm1d(dims[i + 1]))
        self.dropout = dropout

    def reset_parameters(self):
        for m in list(self.lins_l) + list(self.lins_r) + list(self.bns):
            m.reset_parameters()

    def forward(self, x, adj_t):
        x = F.dropout(x, p=self.dropout, training=self.training)
        for i in range(len(self.lins_l)):
            x = self.lins_l[i](torch.sparse.mm(adj_t, x)) + self.lins_r[i](x)
            if i < len(self.lins_l) - 1:
                x = self.bns[i](x)
                x = F.relu(x)
                x = F.dropout(x, p=self.dropout, training=self.training)
        return x.log_softmax(dim=-1)


class Evaluator:
    def __init__(self, name):
        self.name = name

    def eval(self, input_dict):
        y_true, y_pred = input_dict['y_true'].view(-1), input_dict['y_pred'].view(-1)
        return {'acc': (y_true == y_pred).float().mean().item()}


class Logger(object):
    def __init__(self, runs, info=None):
        self.info = info
        self.results = [[] for _ in range(runs)]

    def add_result(self, run, result):
        self.results[run].append(result)

    def print_statistics(self, run=None):
        if run is not None:
            result = 100 * torch.tensor(self.results[run])
            argmax = result[:, 1].argmax().item()
            print(f'Run {run + 1:02d}:')
            print(f'Highest Train: {result[:, 0].max():.2f}')
            print(f'Highest Valid: {result[:, 1].max():.2f}')
            print(f'  Final Train: {result[argmax, 0]:.2f}')
            print(f'   Final Test: {result[argmax, 2]:.2f}')
        else:
            result = 100 * torch.tensor(self.results)
            best = []
            for r in result:
                best.append((r[:, 0].max().item(), r[:, 1].max().item(),
                             r[r[:, 1].argmax(), 0].item(), r[r[:, 1].argmax(), 2].item()))
            best = torch.tensor(best)
            print('All runs:')
            print(f'Highest Train: {best[:, 0].mean():.2f} ± {best[:, 0].std():.2f}')
            print(f'Highest Valid: {best[:, 1].mean():.2f} ± {best[:, 1].std():.2f}')
            print(f'  Final Train: {best[:, 2].mean():.2f} ± {best[:, 2].std():.2f}')
            print(f'   Final Test: {best[:, 3].mean():.2f} ± {best[:, 3].std():.2f}')


def train(model, x, adj_t, y, train_idx, optimizer):
    model.train()
    optimizer.zero_grad()
    out = model(x, adj_t)[train_idx]
    loss = F.nll_loss(out, y[train_idx])
    loss.backward()
    optimizer.step()
    return loss.item()


@torch.no_grad()
def test(model, x, adj_t, y, split_idx, evaluator):
    out = model(x, adj_t)
    y_pred = out.argmax(dim=-1, keepdim=True)
    return tuple(evaluator.eval({'y_true': y[split_idx[k]], 'y_pred': y_pred[split_idx[k]]})['acc']
                 for k in ['train', 'valid', 'test'])


def main():
    parser = argparse.ArgumentParser(description='SBM-words (GraphSAGE)')
    parser.add_argument('--num_layers', type=int, default=2)
    parser.add_argument('--hidden_channels', type=int, default=64)
    parser.add_argument('--dropout', type=float, default=0.6)
    parser.add_argument('--lr', type=float, default=0.005)
    parser.add_argument('--epochs', type=int, default=80)
    parser.add_argument('--runs', type=int, default=2)
    parser.add_argument('--log_steps', type=int, default=5)
    args = parser.parse_args()
    print(args)
    torch.set_num_threads(1)

    x, adj, y, split_idx = make_dataset()
    adj_t = (adj / adj.sum(1, keepdim=True).clamp(min=1)).to_sparse()
    model = SAGE(x.size(-1), args.hidden_channels, int(y.max()) + 1, args.num_layers, args.dropout)
    evaluator = Evaluator(name='sbm-words')
    logger = Logger(args.runs, args)
    best_states = []

    for run in range(args.runs):
        torch.manual_seed(run)
        model.reset_parameters()
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        best_valid, best_state = 0., None
        for epoch in range(1, 1 + args.epochs):
            loss = train(model, x, adj_t, y, split_idx['train'], optimizer)
            result = test(model, x, adj_t, y, split_idx, evaluator)
            logger.add_result(run, result)
            if result[1] > best_valid:
                best_valid, best_state = result[1], copy.deepcopy(model.state_dict())
            if epoch % args.log_steps == 0:
                train_acc, valid_acc, test_acc = result
                print(f'Run: {run + 1:02d}, Epoch: {epoch:02d}, Loss: {loss:.4f}, '
                      f'Train: {100 * train_acc:.2f}%, Valid: {100 * valid_acc:.2f}% '
                      f'Test: {100 * test_acc:.2f}%')
        logger.print_statistics(run)
        best_states.append(best_state)
    logger.print_statistics()

    print('Re-evaluating best checkpoints:')
    for run, state in enumerate(best_states):
        model.load_state_dict(state)
        train_acc, valid_acc, test_acc = test(model, x, adj_t, y, split_idx, evaluator)
        print(f'Run {run + 1:02d} best checkpoint -> valid: {{\'acc\': {valid_acc:.4f}}}, '
              f'test: {{\'acc\': {test_acc:.4f}}}')


if __name__ == "__main__":
    main()
'''

SCRIPTS['wide_gcn_noreg'] = r'''import argparse
import csv

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--num_nodes', type=int, default=900)
parser.add_argument('--num_features', type=int, default=300)
parser.add_argument('--train_per_class', type=int, default=40)
parser.add_argument('--hidden', type=int, default=256)
parser.add_argument('--dropout', type=float, default=0.0)
parser.add_argument('--lr', type=float, default=0.001)
parser.add_argument('--weight_decay', type=float, default=0.0)
parser.add_argument('--epochs', type=int, default=150)
args = parser.parse_args()
print(args)
torch.set_num_threads(1)
torch.manual_seed(2024)

g = torch.Generator().manual_seed(5)
n, k = args.num_nodes, 3
y = torch.randint(0, k, (n,), generator=g)
P = torch.where(y[:, None] == y[None, :], torch.tensor(0.008), torch.tensor(0.004))
adj = torch.bernoulli(P, generator=g).triu(1)
adj = adj + adj.t()
signal = torch.zeros(k, args.num_features)
signal[:, :30] = torch.randn(k, 30, generator=g)
x = 0.5 * signal[y] + torch.randn(n, args.num_features, generator=g)

train_idx = torch.cat([(y == c).nonzero().view(-1)[:args.train_per_class] for c in range(k)])
rest = torch.ones(n, dtype=torch.bool)
rest[train_idx] = False
rest = rest.nonzero().view(-1)
rest = rest[torch.randperm(rest.numel(), generator=g)]
val_idx, test_idx = rest[:300], rest[300:]
print(f'nodes={n} edges={int(adj.sum()) // 2} features={args.num_features} classes={k} '
      f'train={train_idx.numel()} val={val_idx.numel()} test={test_idx.numel()}')

a = adj + torch.eye(n)
d = a.sum(1).pow(-0.5)
A = (d[:, None] * a * d[None, :]).to_sparse()


class GCN(torch.nn.Module):
    def __init__(self, cin, hid, cout):
        super().__init__()
        self.lin1 = torch.nn.Linear(cin, hid)
        self.lin2 = torch.nn.Linear(hid, hid)
        self.lin3 = torch.nn.Linear(hid, cout)

    def forward(self, x):
        x = torch.sparse.mm(A, self.lin1(x)).relu()
        x = F.dropout(x, args.dropout, self.training)
        x = torch.sparse.mm(A, self.lin2(x)).relu()
        x = F.dropout(x, args.dropout, self.training)
        return self.lin3(x)


model = GCN(args.num_features, args.hidden, k)
opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
print(f'params: {sum(p.numel() for p in model.parameters())}')

log = []
for epoch in range(1, args.epochs + 1):
    model.train()
    opt.zero_grad()
    out = model(x)
    loss = F.cross_entropy(out[train_idx], y[train_idx])
    loss.backward()
    opt.step()
    model.eval()
    with torch.no_grad():
        out = model(x)
        val_loss = F.cross_entropy(out[val_idx], y[val_idx]).item()
        pred = out.argmax(1)
        tr = (pred[train_idx] == y[train_idx]).float().mean().item()
        va = (pred[val_idx] == y[val_idx]).float().mean().item()
        te = (pred[test_idx] == y[test_idx]).float().mean().item()
    log.append((epoch, loss.item(), val_loss, tr, va, te))
    if epoch == 1 or epoch % 5 == 0:
        print(f'Epoch: {epoch:03d}, Loss: {loss.item():.4f}, Val Loss: {val_loss:.4f}, '
              f'Train: {tr:.4f}, Val: {va:.4f}, Test: {te:.4f}')

with open('metrics.csv', 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['epoch', 'loss', 'val_loss', 'train_acc', 'val_acc', 'test_acc'])
    for row in log:
        w.writerow([row[0]] + [f'{v:.6f}' for v in row[1:]])
'''

SCRIPTS['link_pred_bce'] = r'''import argparse

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
'''

SCRIPTS['gin_graph_cls'] = r'''import argparse
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
'''

SCRIPTS['gcn_neg_bias'] = r'''import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

parser = argparse.ArgumentParser()
parser.add_argument('--hidden', type=int, default=128)
parser.add_argument('--num_layers', type=int, default=3)
parser.add_argument('--lr', type=float, default=0.005)
parser.add_argument('--weight_decay', type=float, default=5e-4)
parser.add_argument('--epochs', type=int, default=50)
parser.add_argument('--seed', type=int, default=3)
args = parser.parse_args()
print(args)
torch.set_num_threads(1)
torch.manual_seed(args.seed)

gen = torch.Generator().manual_seed(21)
n, k, d = 2000, 4, 64
y = torch.randint(0, k, (n,), generator=gen)
P = torch.where(y[:, None] == y[None, :], torch.tensor(0.012), torch.tensor(0.002))
adj = torch.bernoulli(P, generator=gen).triu(1)
adj = adj + adj.t() + torch.eye(n)
dinv = adj.sum(1).pow(-0.5)
A = (dinv[:, None] * adj * dinv[None, :]).to_sparse()
x = 0.5 * torch.randn(k, d, generator=gen)[y] + torch.randn(n, d, generator=gen)
x = (x - x.mean(0)) / x.std(0)
perm = torch.randperm(n, generator=gen)
train_idx, val_idx, test_idx = perm[:1000], perm[1000:1500], perm[1500:]


class GCNLayer(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(cin, cout))
        self.bias = nn.Parameter(torch.empty(cout))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_uniform_(self.weight)
        nn.init.constant_(self.bias, -0.3)

    def forward(self, x, A):
        return torch.sparse.mm(A, x @ self.weight) + self.bias


class GCN(nn.Module):
    def __init__(self, cin, hidden, cout, num_layers):
        super().__init__()
        self.layers = nn.ModuleList([GCNLayer(cin if i == 0 else hidden, hidden)
                                     for i in range(num_layers - 1)])
        self.out = nn.Linear(hidden, cout)

    def forward(self, x, A):
        acts = []
        for layer in self.layers:
            x = F.relu(layer(x, A))
            acts.append(x)
        return self.out(x), acts


model = GCN(d, args.hidden, k, args.num_layers)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
writer = SummaryWriter('tb_logs/gcn_sbm')

for epoch in range(1, args.epochs + 1):
    model.train()
    optimizer.zero_grad()
    out, acts = model(x, A)
    loss = F.cross_entropy(out[train_idx], y[train_idx])
    loss.backward()
    optimizer.step()

    model.eval()
    with torch.no_grad():
        out, acts = model(x, A)
        pred = out.argmax(-1)
        tr = (pred[train_idx] == y[train_idx]).float().mean().item()
        va = (pred[val_idx] == y[val_idx]).float().mean().item()
        te = (pred[test_idx] == y[test_idx]).float().mean().item()
    writer.add_scalar('train/loss', loss.item(), epoch)
    writer.add_scalar('acc/train', tr, epoch)
    writer.add_scalar('acc/val', va, epoch)
    writer.add_scalar('acc/test', te, epoch)
    for i, (a, layer) in enumerate(zip(acts, model.layers)):
        writer.add_scalar(f'activations/layer{i}_frac_zero', (a == 0).float().mean().item(), epoch)
        writer.add_scalar(f'activations/layer{i}_mean', a.mean().item(), epoch)
        writer.add_scalar(f'grad_norm/layer{i}', layer.weight.grad.norm().item(), epoch)
    writer.add_scalar('grad_norm/out', model.out.weight.grad.norm().item(), epoch)
    print(f'Epoch: {epoch:03d}, Loss: {loss.item():.4f}, Train: {tr:.4f}, Val: {va:.4f}, Test: {te:.4f}')
writer.close()
'''

SCRIPTS['mol_raw_features'] = r'''import argparse
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
'''

SCRIPTS['node_emb_gcn'] = r'''import argparse

import torch
import torch.nn.functional as F
from torch import nn


class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.lin = nn.Linear(in_channels, out_channels)

    def extra_repr(self):
        return f'{self.in_channels}, {self.out_channels}'

    def forward(self, x, adj_t):
        return torch.sparse.mm(adj_t, self.lin(x))


class Net(nn.Module):
    def __init__(self, num_nodes, num_features, emb_dim, hidden, num_classes, dropout):
        super().__init__()
        self.emb = nn.Embedding(num_nodes, emb_dim)
        self.conv1 = GCNConv(num_features + emb_dim, hidden)
        self.conv2 = GCNConv(hidden, num_classes)
        self.dropout = dropout

    def forward(self, x, adj_t):
        h = torch.cat([x, self.emb.weight], dim=-1)
        h = F.relu(self.conv1(h, adj_t))
        h = F.dropout(h, self.dropout, self.training)
        return self.conv2(h, adj_t)


def main():
    parser = argparse.ArgumentParser(description='node-emb GCN (SBM-5k)')
    parser.add_argument('--emb_dim', type=int, default=256)
    parser.add_argument('--hidden_channels', type=int, default=8)
    parser.add_argument('--dropout', type=float, default=0.5)
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--epochs', type=int, default=120)
    parser.add_argument('--eval_steps', type=int, default=10)
    parser.add_argument('--runs', type=int, default=1)
    args = parser.parse_args()
    print(args)
    torch.set_num_threads(1)
    torch.manual_seed(0)

    g = torch.Generator().manual_seed(8)
    n, k = 4000, 5
    y = torch.randint(0, k, (n,), generator=g)
    rows, cols = [], []
    for c in range(k):
        idx = (y == c).nonzero().view(-1)
        m = idx.numel() * 2
        rows.append(idx[torch.randint(0, idx.numel(), (m,), generator=g)])
        cols.append(idx[torch.randint(0, idx.numel(), (m,), generator=g)])
    m = n * 4
    rows.append(torch.randint(0, n, (m,), generator=g))
    cols.append(torch.randint(0, n, (m,), generator=g))
    row, col = torch.cat(rows), torch.cat(cols)
    row, col = torch.cat([row, col, torch.arange(n)]), torch.cat([col, row, torch.arange(n)])
    A = torch.sparse_coo_tensor(torch.stack([row, col]), torch.ones(row.numel()), (n, n)).coalesce()
    r, c = A.indices()
    deg = torch.bincount(r, minlength=n).float()
    adj_t = torch.sparse_coo_tensor(A.indices(), deg[r].pow(-0.5) * deg[c].pow(-0.5), (n, n)).coalesce()
    x = 0.4 * torch.randn(k, 16, generator=g)[y] + torch.randn(n, 16, generator=g)
    perm = torch.randperm(n, generator=g)
    split = {'train': perm[:2000], 'valid': perm[2000:3000], 'test': perm[3000:]}

    model = Net(n, x.size(1), args.emb_dim, args.hidden_channels, k, args.dropout)
    print(model)
    print(f'Number of parameters: {sum(p.numel() for p in model.parameters()):,}')
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    results = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        optimizer.zero_grad()
        out = model(x, adj_t)
        loss = F.cross_entropy(out[split['train']], y[split['train']])
        loss.backward()
        optimizer.step()
        if epoch % args.eval_steps == 0 or epoch == 1:
            model.eval()
            with torch.no_grad():
                out = model(x, adj_t)
            pred = out.argmax(-1)
            accs = [(pred[split[s]] == y[split[s]]).float().mean().item()
                    for s in ['train', 'valid', 'test']]
            vloss = F.cross_entropy(out[split['valid']], y[split['valid']]).item()
            results.append(accs)
            print(f'Epoch: {epoch:03d}, Loss: {loss.item():.4f}, Valid loss: {vloss:.4f}, '
                  f'Train: {accs[0]:.4f}, Val: {accs[1]:.4f}, Test: {accs[2]:.4f}')

    res = 100 * torch.tensor(results)
    best = res[:, 1].argmax()
    print('Run 01:')
    print(f'Highest Train: {res[:, 0].max():.2f}')
    print(f'Highest Valid: {res[:, 1].max():.2f}')
    print(f'  Final Train: {res[best, 0]:.2f}')
    print(f'   Final Test: {res[best, 2]:.2f}')


if __name__ == '__main__':
    main()
'''


def run_one(name, key, logname, ship, env):
    d = os.path.join(RUNS_DIR, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    script = os.path.join(d, 'train.py')
    with open(script, 'w') as f:
        f.write(SCRIPTS[key])
    t0 = time.time()
    with open(os.path.join(d, logname), 'w') as log:
        rc = subprocess.call([PYTHON, 'train.py'], cwd=d, stdout=log, stderr=subprocess.STDOUT, env=env)
    if not ship:
        os.remove(script)
    return rc, time.time() - t0


def main():
    only = set(sys.argv[1:])
    env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', PYTHONHASHSEED='0')
    os.makedirs(RUNS_DIR, exist_ok=True)
    truth = {}
    for name, key, logname, ship, cause, symptom, how in RUNS:
        truth[name] = {'truth': cause, 'symptom': symptom, 'how': how}
        if only and name not in only:
            continue
        rc, dt = run_one(name, key, logname, ship, env)
        print(f'{name}: rc={rc} {dt:.1f}s ({cause})', flush=True)
    with open(os.path.join(HERE, 'truth.json'), 'w') as f:
        json.dump(truth, f, indent=2)


if __name__ == '__main__':
    main()
