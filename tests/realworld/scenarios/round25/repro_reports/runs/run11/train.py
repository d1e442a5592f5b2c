import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml


def build_model(cfg, d_in, n_classes):
    layers, d = [], d_in
    for _ in range(cfg['depth']):
        layers += [nn.Linear(d, cfg['width']), nn.BatchNorm1d(cfg['width']), nn.ReLU(), nn.Dropout(cfg['dropout'])]
        d = cfg['width']
    layers.append(nn.Linear(d, n_classes))
    return nn.Sequential(*layers)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--config', default='config.yaml')
    p.add_argument('--seed', type=int, default=None)
    args = p.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    if args.seed is not None:
        cfg['seed'] = args.seed
    torch.manual_seed(cfg['seed'])
    np.random.seed(cfg['seed'])

    d = cfg['data_dir']
    xtr = torch.from_numpy(np.load(os.path.join(d, 'train_x.npy')))
    ytr = torch.from_numpy(np.load(os.path.join(d, 'train_y.npy')))
    xte = torch.from_numpy(np.load(os.path.join(d, 'test_x.npy')))
    yte = torch.from_numpy(np.load(os.path.join(d, 'test_y.npy')))
    mean, std = xtr.mean(0), xtr.std(0)
    xtr, xte = (xtr - mean) / std, (xte - mean) / std

    model = build_model(cfg['model'], xtr.shape[1], int(ytr.max()) + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg['lr'], weight_decay=cfg['weight_decay'])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg['epochs'])
    print(f"seed={cfg['seed']} params={sum(p.numel() for p in model.parameters())} "
          f"train={len(xtr)} test={len(xte)}")

    bs = cfg['batch_size']
    for epoch in range(1, cfg['epochs'] + 1):
        model.train()
        t0 = time.time()
        perm = torch.randperm(len(xtr))
        tot, correct = 0.0, 0
        for i in range(0, len(xtr) - bs + 1, bs):
            idx = perm[i:i + bs]
            out = model(xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * bs
            correct += (out.argmax(1) == ytr[idx]).sum().item()
        sched.step()
        n = (len(xtr) // bs) * bs
        model.eval()
        with torch.no_grad():
            out = model(xte)
            te_loss = F.cross_entropy(out, yte).item()
            te_acc = 100.0 * (out.argmax(1) == yte).float().mean().item()
        print(f'epoch {epoch:02d} | lr {sched.get_last_lr()[0]:.2e} | train_loss {tot / n:.4f} | '
              f'train_acc {100.0 * correct / n:.2f} | test_loss {te_loss:.4f} | test_acc {te_acc:.2f} | '
              f'{time.time() - t0:.2f}s')
    print(f'FINAL seed={cfg["seed"]} test_acc={te_acc:.2f}')


if __name__ == '__main__':
    main()
