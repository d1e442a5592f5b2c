import argparse

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
