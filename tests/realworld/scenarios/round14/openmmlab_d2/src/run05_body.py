class GlyphConvNet(nn.Module):
    def __init__(self, channels=(16, 32), fc_dim=128, num_classes=10):
        super().__init__()
        c1, c2 = channels
        self.backbone = nn.Sequential(
            nn.Conv2d(1, c1, 3, padding=1), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 3, padding=1), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(c2 * 9, fc_dim), nn.ReLU())
        self.head = nn.Linear(fc_dim, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def accuracy(logits, target, topk=(1,)):
    pred = logits.topk(max(topk), dim=1).indices
    return [100.0 * (pred[:, :k] == target[:, None]).any(dim=1).float().mean().item() for k in topk]


def main():
    cfg_path = sys.argv[1] if len(sys.argv) > 1 else 'glyph_convnet_20e.py'
    cfg = load_config(cfg_path)
    torch.set_num_threads(1)
    seed = cfg['randomness']['seed']
    torch.manual_seed(seed)
    np.random.seed(seed)
    log = MMStyleLog(cfg['work_dir'], cfg_path)
    log.header(seed)

    tr, va = cfg['train_dataloader'], cfg['val_dataloader']
    X, y = make_glyphs(tr['dataset']['num_samples'], seed, noise=0.2)
    Xv, yv = make_glyphs(va['dataset']['num_samples'], seed + 1000, noise=0.2)
    X, y, Xv, yv = map(torch.from_numpy, (X, y, Xv, yv))
    train_loader = DataLoader(TensorDataset(X, y), batch_size=tr['batch_size'], shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    val_loader = DataLoader(TensorDataset(Xv, yv), batch_size=va['batch_size'])

    b = cfg['model']['backbone']
    model = GlyphConvNet(b['channels'], b['fc_dim'], cfg['model']['head']['num_classes'])
    o = dict(cfg['optimizer'])
    base_lr = o['lr']
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=o['momentum'],
                                weight_decay=o['weight_decay'])
    max_norm = cfg['optim_wrapper']['clip_grad']['max_norm']
    max_epochs = cfg['train_cfg']['max_epochs']
    n_iter = len(train_loader)
    interval = cfg['default_hooks']['logger']['interval']
    topk = cfg['val_evaluator']['topk']
    log.info(f'Checkpoints will be saved to {os.path.abspath(cfg["work_dir"])}.')

    step, hist = 0, []
    for epoch in range(1, max_epochs + 1):
        model.train()
        t_end = time.perf_counter()
        for i, (xb, yb) in enumerate(train_loader):
            t_data = time.perf_counter()
            lr = base_lr * lr_factor(cfg['param_scheduler'], step, epoch - 1, n_iter)
            for group in optimizer.param_groups:
                group['lr'] = lr
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            optimizer.zero_grad()
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm).item()
            optimizer.step()
            step += 1
            now = time.perf_counter()
            hist.append((now - t_end, t_data - t_end, grad_norm, loss.item()))
            t_end = now
            if (i + 1) % interval == 0 or i + 1 == n_iter:
                w = hist[-((i % interval) + 1):]
                eta = (max_epochs * n_iter - step) * np.mean([h[0] for h in hist[-100:]])
                log.train(epoch, max_epochs, i + 1, n_iter, step, base_lr, lr, eta,
                          np.mean([h[0] for h in w]), np.mean([h[1] for h in w]),
                          {'grad_norm': float(np.mean([h[2] for h in w])), 'loss': float(np.mean([h[3] for h in w]))})
        if epoch % cfg['default_hooks']['checkpoint']['interval'] == 0:
            log.info(f'Saving checkpoint at {epoch} epochs')
        model.eval()
        t0 = time.perf_counter()
        correct = []
        with torch.no_grad():
            for xb, yb in val_loader:
                correct.append(torch.tensor(accuracy(model(xb), yb, topk)) * len(yb))
        el = (time.perf_counter() - t0) / len(val_loader)
        acc = (torch.stack(correct).sum(0) / len(val_loader.dataset)).tolist()
        log.val(epoch, max_epochs, len(val_loader), {f'accuracy/top{k}': a for k, a in zip(topk, acc)}, el, el * 0.05)


if __name__ == '__main__':
    main()
