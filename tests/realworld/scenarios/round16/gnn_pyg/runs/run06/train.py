import argparse
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
