class MLPNet(nn.Module):
    def __init__(self, in_dim, hidden, out_dim, dropout=0.0):
        super().__init__()
        layers, d = [], in_dim
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            d = h
        self.backbone = nn.Sequential(*layers)
        self.head = nn.Linear(d, out_dim)

    def forward(self, x):
        return self.head(self.backbone(x.flatten(1)))


class SmallConvNet(nn.Module):
    def __init__(self, channels, out_dim):
        super().__init__()
        layers, c = [], 1
        for ch in channels:
            layers += [nn.Conv2d(c, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(), nn.MaxPool2d(2)]
            c = ch
        self.backbone = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(c, out_dim)

    def forward(self, x):
        return self.head(self.backbone(x))


def build_model(cfg, in_shape, out_dim):
    b = cfg['model']['backbone']
    if b['type'] == 'MLP':
        return MLPNet(int(np.prod(in_shape)), b['hidden_dims'], out_dim, b.get('dropout', 0.0))
    return SmallConvNet(b['channels'], out_dim)


def build_optimizer(cfg, model):
    o = dict(cfg['optim_wrapper']['optimizer'])
    t = o.pop('type')
    return getattr(torch.optim, t)(model.parameters(), **o)


def topk_acc(logits, y, ks):
    top = logits.topk(max(ks), 1).indices
    return [100.0 * (top[:, :k] == y[:, None]).any(1).float().mean().item() for k in ks]


def main(cfg_path, hidden):
    torch.set_num_threads(1)
    cfg = load_config(cfg_path)
    seed = cfg['randomness']['seed']
    torch.manual_seed(seed)
    np.random.seed(seed)
    log = MMStyleLog(cfg['work_dir'], cfg_path)
    log.header(seed)
    task = cfg['model']['head']['type']
    tr, va = cfg['train_dataloader'], cfg['val_dataloader']
    if cfg['dataset_type'] == 'GlyphDataset':
        X, y = make_glyphs(hidden['n_train'], seed, noise=hidden.get('pixel_noise', 0.35))
        Xv, yv = make_glyphs(hidden['n_val'], seed + 1000, noise=hidden.get('pixel_noise', 0.35))
        if hidden.get('label_flip', 0) > 0:
            rng = np.random.default_rng(seed + 7)
            flip = rng.random(len(y)) < hidden['label_flip']
            y = y.copy()
            y[flip] = (y[flip] + rng.integers(1, 10, flip.sum())) % 10
        n_out = 10
    elif cfg['dataset_type'] == 'TabularDataset':
        X, y = make_classification(hidden['n_train'], seed, class_sep=hidden.get('class_sep', 2.0))
        Xv, yv = make_classification(hidden['n_val'], seed + 1000, class_sep=hidden.get('class_sep', 2.0))
        if hidden.get('label_flip', 0) > 0:
            rng = np.random.default_rng(seed + 7)
            flip = rng.random(len(y)) < hidden['label_flip']
            y = y.copy()
            y[flip] = (y[flip] + rng.integers(1, 10, flip.sum())) % 10
        mu, sd = X.mean(0), X.std(0)
        X, Xv = (X - mu) / sd, (Xv - mu) / sd
        n_out = 10
    else:
        X, y = make_friedman(hidden['n_train'], seed)
        Xv, yv = make_friedman(hidden['n_val'], seed + 1000)
        mu, sd = X.mean(0), X.std(0)
        X, Xv = (X - mu) / sd, (Xv - mu) / sd
        ym, ys = y.mean(), y.std()
        y, yv = (y - ym) / ys, (yv - ym) / ys
        n_out = 1
    X, y, Xv, yv = map(torch.from_numpy, (X, y, Xv, yv))
    model = build_model(cfg, X.shape[1:], n_out)
    opt = build_optimizer(cfg, model)
    max_epochs = cfg['train_cfg']['max_epochs']
    bs = tr['batch_size']
    n_iter = len(y) // bs if tr.get('drop_last', False) else math.ceil(len(y) / bs)
    n_val_iter = math.ceil(len(yv) / va['batch_size'])
    interval = cfg['default_hooks']['logger']['interval']
    ckpt_int = cfg['default_hooks']['checkpoint']['interval']
    val_int = cfg['train_cfg'].get('val_interval', 1)
    clip = cfg['optim_wrapper'].get('clip_grad')
    base_lr = cfg['optim_wrapper']['optimizer']['lr']
    total = max_epochs * n_iter
    log.info('Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be '
             'automatically reverted to BatchNormXd layers if they are used.')
    log.info('Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) RuntimeInfoHook\n'
             '(BELOW_NORMAL) LoggerHook\n --------------------\nafter_train_iter:\n(VERY_HIGH   ) RuntimeInfoHook\n'
             '(NORMAL      ) IterTimerHook\n(BELOW_NORMAL) LoggerHook\n(LOW         ) ParamSchedulerHook\n'
             '(VERY_LOW    ) CheckpointHook\n --------------------')
    log.info(f'Checkpoints will be saved to {os.path.abspath(cfg["work_dir"])}.')
    g = torch.Generator().manual_seed(seed)
    step = 0
    buf, times = {}, []
    t_run = time.perf_counter()
    for epoch in range(1, max_epochs + 1):
        model.train()
        perm = torch.randperm(len(y), generator=g)
        for i in range(n_iter):
            t0 = time.perf_counter()
            idx = perm[i * bs:(i + 1) * bs]
            xb, yb = X[idx], y[idx]
            t1 = time.perf_counter()
            lr = base_lr * lr_factor(cfg['param_scheduler'], step, epoch - 1, n_iter)
            for grp in opt.param_groups:
                grp['lr'] = lr
            out = model(xb)
            vals = {}
            if task == 'LinearClsHead':
                loss = F.cross_entropy(out, yb)
                vals['loss'] = loss.item()
                if cfg['model']['head'].get('cal_acc'):
                    vals['accuracy_top-1'] = topk_acc(out.detach(), yb, (1,))[0]
            else:
                loss = F.mse_loss(out.squeeze(1), yb)
                vals['loss'] = loss.item()
                vals['loss_mse'] = loss.item()
            opt.zero_grad()
            loss.backward()
            if clip:
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), **clip).item()
                vals = {'grad_norm': gn, **vals}
            opt.step()
            step += 1
            t2 = time.perf_counter()
            times.append((t2 - t0, t1 - t0))
            for k, v in vals.items():
                buf.setdefault(k, []).append(v)
            if (i + 1) % interval == 0 or i + 1 == n_iter:
                k = (i % interval) + 1 if (i + 1) % interval else interval
                t = float(np.mean([a for a, _ in times[-k:]]))
                dt = float(np.mean([b for _, b in times[-k:]]))
                avg = {kk: float(np.mean(vv[-k:])) for kk, vv in buf.items()}
                eta = (total - step) * float(np.mean([a for a, _ in times[-200:]]))
                log.train(epoch, max_epochs, i + 1, n_iter, step, base_lr, lr, eta, t, dt, avg)
        if epoch % 5 == 0 or epoch == max_epochs:
            log.info(f'Exp name: {log.exp_name}')
        if epoch % ckpt_int == 0 or epoch == max_epochs:
            log.info(f'Saving checkpoint at {epoch} epochs')
        if epoch % val_int == 0 or epoch == max_epochs:
            model.eval()
            tv = time.perf_counter()
            outs = []
            with torch.no_grad():
                for j in range(n_val_iter):
                    outs.append(model(Xv[j * va['batch_size']:(j + 1) * va['batch_size']]))
            out = torch.cat(outs)
            el = (time.perf_counter() - tv) / n_val_iter
            if task == 'LinearClsHead':
                ks = cfg['val_evaluator'].get('topk', (1,))
                accs = topk_acc(out, yv, ks)
                metrics = {f'accuracy/top{k}': a for k, a in zip(ks, accs)}
            else:
                err = out.squeeze(1) - yv
                metrics = {'mae': err.abs().mean().item(), 'rmse': err.pow(2).mean().sqrt().item(),
                           'r2': 1 - err.pow(2).mean().item() / yv.var(unbiased=False).item()}
            log.val(epoch, max_epochs, n_val_iter, metrics, el, el * 0.1)


if __name__ == '__main__':
    main(sys.argv[1], json.loads(sys.argv[2]) if len(sys.argv) > 2 else {})
