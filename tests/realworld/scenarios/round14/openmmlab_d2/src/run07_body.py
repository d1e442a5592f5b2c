class GlyphConvNet(nn.Module):
    def __init__(self, channels=(16, 32), fc_dim=128, num_classes=10):
        super().__init__()
        c1, c2 = channels
        self.backbone = nn.Sequential(
            nn.Conv2d(1, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(c2 * 9, fc_dim), nn.ReLU())
        self.head = nn.Linear(fc_dim, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def main():
    cfg_path = sys.argv[1] if len(sys.argv) > 1 else 'glyph_convnet_wide_80e.py'
    cfg = load_config(cfg_path)
    torch.set_num_threads(1)
    seed = cfg['randomness']['seed']
    torch.manual_seed(seed)
    np.random.seed(seed)
    log = MMStyleLog(cfg['work_dir'], cfg_path)
    log.header(seed)

    tr, va = cfg['train_dataloader'], cfg['val_dataloader']
    X, y = make_glyphs(tr['dataset']['num_samples'], seed, noise=0.25)
    Xv, yv = make_glyphs(va['dataset']['num_samples'], seed + 1000, noise=0.25)
    X, y, Xv, yv = map(torch.from_numpy, (X, y, Xv, yv))
    train_loader = DataLoader(TensorDataset(X, y), batch_size=tr['batch_size'], shuffle=True,
                              generator=torch.Generator().manual_seed(seed))
    val_loader = DataLoader(TensorDataset(Xv, yv), batch_size=va['batch_size'])

    b = cfg['model']['backbone']
    model = GlyphConvNet(b['channels'], b['fc_dim'], cfg['model']['head']['num_classes'])
    o = dict(cfg['optimizer'])
    o.pop('type')
    base_lr = o['lr']
    optimizer = torch.optim.Adam(model.parameters(), **o)
    max_epochs = cfg['train_cfg']['max_epochs']
    n_iter = len(train_loader)
    interval = cfg['default_hooks']['logger']['interval']
    log.info(f'Checkpoints will be saved to {os.path.abspath(cfg["work_dir"])}.')

    step, hist = 0, []
    for epoch in range(1, max_epochs + 1):
        model.train()
        t_end = time.perf_counter()
        for i, (xb, yb) in enumerate(train_loader):
            t_data = time.perf_counter()
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            now = time.perf_counter()
            hist.append((now - t_end, t_data - t_end, loss.item()))
            t_end = now
            if (i + 1) % interval == 0 or i + 1 == n_iter:
                w = hist[-((i % interval) + 1):]
                eta = (max_epochs * n_iter - step) * np.mean([h[0] for h in hist[-100:]])
                log.train(epoch, max_epochs, i + 1, n_iter, step, base_lr, base_lr, eta,
                          np.mean([h[0] for h in w]), np.mean([h[1] for h in w]),
                          {'loss': float(np.mean([h[2] for h in w]))})
        if epoch % cfg['default_hooks']['checkpoint']['interval'] == 0:
            log.info(f'Saving checkpoint at {epoch} epochs')
        if epoch % cfg['train_cfg']['val_interval'] == 0:
            model.eval()
            t0 = time.perf_counter()
            n_correct, loss_sum = 0, 0.0
            with torch.no_grad():
                for xb, yb in val_loader:
                    logits = model(xb)
                    loss_sum += F.cross_entropy(logits, yb, reduction='sum').item()
                    n_correct += (logits.argmax(1) == yb).sum().item()
            el = (time.perf_counter() - t0) / len(val_loader)
            n = len(val_loader.dataset)
            log.val(epoch, max_epochs, len(val_loader),
                    {'accuracy/top1': 100.0 * n_correct / n, 'val_loss': loss_sum / n}, el, el * 0.05)


if __name__ == '__main__':
    main()
