"""
char-rnn in pytorch: multi-layer GRU/LSTM character-level language model.

usage: python char_rnn.py --input data/tinyplays/input.txt --model gru --rnn_size 128 --num_layers 2
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument('--input', type=str, default='data/tinyshakespeare/input.txt')
parser.add_argument('--model', type=str, default='lstm', choices=['lstm', 'gru', 'rnn'])
parser.add_argument('--rnn_size', type=int, default=128)
parser.add_argument('--num_layers', type=int, default=2)
parser.add_argument('--dropout', type=float, default=0.0)
parser.add_argument('--seq_length', type=int, default=50)
parser.add_argument('--batch_size', type=int, default=50)
parser.add_argument('--max_iters', type=int, default=2000)
parser.add_argument('--learning_rate', type=float, default=2e-3)
parser.add_argument('--decay_rate', type=float, default=0.95)
parser.add_argument('--grad_clip', type=float, default=5.0)
parser.add_argument('--train_frac', type=float, default=0.95)
parser.add_argument('--print_every', type=int, default=10)
parser.add_argument('--eval_val_every', type=int, default=500)
parser.add_argument('--checkpoint_dir', type=str, default='cv')
parser.add_argument('--seed', type=int, default=123)
args = parser.parse_args()

torch.manual_seed(args.seed)
torch.set_num_threads(1)

text = open(args.input, 'r').read()
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
n = int(args.train_frac * len(data))
train_data, val_data = data[:n], data[n:]
print(f'loading text file... {len(text)} characters, vocab size: {vocab_size}')
print(f'data split: train {len(train_data)}, val {len(val_data)}')

def get_batch(split, batch_size=None):
    d = train_data if split == 'train' else val_data
    ix = torch.randint(len(d) - args.seq_length - 1, (batch_size or args.batch_size,))
    x = torch.stack([d[i:i + args.seq_length] for i in ix])
    y = torch.stack([d[i + 1:i + 1 + args.seq_length] for i in ix])
    return x, y

class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, args.rnn_size)
        rnn_cls = {'lstm': nn.LSTM, 'gru': nn.GRU, 'rnn': nn.RNN}[args.model]
        self.rnn = rnn_cls(args.rnn_size, args.rnn_size, num_layers=args.num_layers,
                           dropout=args.dropout if args.num_layers > 1 else 0.0, batch_first=True)
        self.drop = nn.Dropout(args.dropout)
        self.decoder = nn.Linear(args.rnn_size, vocab_size)

    def forward(self, x, h=None):
        out, h = self.rnn(self.embed(x), h)
        return self.decoder(self.drop(out)), h

model = CharRNN()
print(f'number of parameters in the model: {sum(p.numel() for p in model.parameters())}')
optimizer = torch.optim.RMSprop(model.parameters(), lr=args.learning_rate, alpha=0.95)
os.makedirs(args.checkpoint_dir, exist_ok=True)

@torch.no_grad()
def eval_split(split, n_batches=20):
    model.eval()
    losses = []
    for _ in range(n_batches):
        x, y = get_batch(split, batch_size=32)
        logits, _ = model(x)
        losses.append(F.cross_entropy(logits.reshape(-1, vocab_size), y.reshape(-1)).item())
    model.train()
    return sum(losses) / len(losses)

@torch.no_grad()
def sample(n_chars=200, prime='\n', temperature=0.8):
    model.eval()
    x = torch.tensor([[stoi[c] for c in prime]])
    h = None
    out = prime
    logits, h = model(x, h)
    for _ in range(n_chars):
        probs = F.softmax(logits[0, -1] / temperature, dim=-1)
        ix = torch.multinomial(probs, 1).item()
        out += itos[ix]
        logits, h = model(torch.tensor([[ix]]), h)
    model.train()
    return out

iters_per_epoch = len(train_data) // (args.batch_size * args.seq_length)
lr = args.learning_rate
for it in range(1, args.max_iters + 1):
    t0 = time.time()
    x, y = get_batch('train')
    logits, _ = model(x)
    loss = F.cross_entropy(logits.reshape(-1, vocab_size), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip if args.grad_clip > 0 else float('inf'))
    optimizer.step()
    dt = time.time() - t0
    epoch = it / max(iters_per_epoch, 1)

    if it % max(iters_per_epoch, 1) == 0 and args.decay_rate < 1.0:
        lr = lr * args.decay_rate
        for g in optimizer.param_groups:
            g['lr'] = lr
        print(f'decayed learning rate by a factor {args.decay_rate} to {lr:.6f}')

    if it % args.print_every == 0 or it == 1:
        print(f'{it}/{args.max_iters} (epoch {epoch:.3f}), train_loss = {loss.item():.8f}, grad norm = {grad_norm.item():.4e}, time/batch = {dt:.4f}s')

    if it % args.eval_val_every == 0 or it == args.max_iters:
        val_loss = eval_split('val')
        print(f'evaluating loss over split index 2 ... val loss {val_loss:.4f}')
        fname = os.path.join(args.checkpoint_dir, f'lm_{args.model}_epoch{epoch:.2f}_{val_loss:.4f}.pt')
        print(f'saving checkpoint to {fname}')
        torch.save({'model': model.state_dict(), 'args': vars(args), 'stoi': stoi, 'itos': itos,
                    'iter': it, 'val_loss': val_loss}, fname)
        print('sample: ' + repr(sample()[:120]))
