def main():
    cfg_path = sys.argv[1] if len(sys.argv) > 1 else 'toydet_shapes_1x.py'
    cfg = load_config(cfg_path)
    torch.set_num_threads(1)
    seed = cfg['randomness']['seed']
    torch.manual_seed(seed)
    np.random.seed(seed)
    log = MMStyleLog(cfg['work_dir'], cfg_path)
    log.header(seed)

    tr, va = cfg['train_dataloader'], cfg['val_dataloader']
    X, y, B = make_shapes(tr['dataset']['num_images'], seed)
    Xv, yv, Bv = make_shapes(va['dataset']['num_images'], seed + 1)
    train_loader = DataLoader(TensorDataset(*map(torch.from_numpy, (X, y, B))), batch_size=tr['batch_size'],
                              shuffle=True, generator=torch.Generator().manual_seed(seed))
    val_loader = DataLoader(TensorDataset(*map(torch.from_numpy, (Xv, yv, Bv))), batch_size=va['batch_size'])

    model = ToyDetector(cfg['model']['bbox_head']['num_classes'], cfg['model']['backbone']['width'])
    o = dict(cfg['optim_wrapper']['optimizer'])
    o.pop('type')
    base_lr = o['lr']
    optimizer = torch.optim.SGD(model.parameters(), **o)
    max_epochs = cfg['train_cfg']['max_epochs']
    n_iter = len(train_loader)
    interval = cfg['default_hooks']['logger']['interval']
    log.info('Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be '
             'automatically reverted to BatchNormXd layers if they are used.')
    log.info(f'Checkpoints will be saved to {os.path.abspath(cfg["work_dir"])}.')

    step, hist = 0, []
    for epoch in range(1, max_epochs + 1):
        model.train()
        t_end = time.perf_counter()
        for i, (xb, yb, bb) in enumerate(train_loader):
            t_data = time.perf_counter()
            lr = base_lr * lr_factor(cfg['param_scheduler'], step, epoch - 1, n_iter)
            for group in optimizer.param_groups:
                group['lr'] = lr
            cls_score, bbox_pred = model(xb)
            loss_cls = F.cross_entropy(cls_score, yb)
            loss_bbox = F.l1_loss(bbox_pred, bb, reduction='sum') / len(yb)
            loss = loss_cls + loss_bbox
            acc = 100.0 * (cls_score.argmax(1) == yb).float().mean().item()
            loss.backward()
            grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None])).item()
            optimizer.step()
            step += 1
            now = time.perf_counter()
            hist.append((now - t_end, t_data - t_end, grad_norm, loss.item(), loss_cls.item(), acc, loss_bbox.item()))
            t_end = now
            if (i + 1) % interval == 0 or i + 1 == n_iter:
                w = np.array(hist[-((i % interval) + 1):])
                eta = (max_epochs * n_iter - step) * np.mean([x[0] for x in hist[-100:]])
                m = w.mean(0)
                log.train(epoch, max_epochs, i + 1, n_iter, step, base_lr, lr, eta, m[0], m[1],
                          {'grad_norm': m[2], 'loss': m[3], 'loss_cls': m[4], 'acc': m[5], 'loss_bbox': m[6]})
        log.info(f'Exp name: {log.exp_name}')
        log.info(f'Saving checkpoint at {epoch} epochs')
        model.eval()
        t0 = time.perf_counter()
        scores, boxes = [], []
        with torch.no_grad():
            for j, (xb, yb, bb) in enumerate(val_loader):
                s, b = model(xb)
                scores.append(torch.softmax(s, 1))
                boxes.append(b)
                if j + 1 == 4:
                    el = (time.perf_counter() - t0) / 4
                    log.val_progress(epoch, max_epochs, j + 1, len(val_loader), el * (len(val_loader) - 4), el, el * 0.1)
        el = (time.perf_counter() - t0) / len(val_loader)
        scores, boxes = torch.cat(scores).numpy(), torch.cat(boxes).numpy()
        ap, ap50, ap75 = det_map(scores, None, boxes, yv, Bv)
        log.info('Evaluating bbox...')
        log.info(f'bbox_mAP_copypaste: {ap:.3f} {ap50:.3f} {ap75:.3f} -1.000 -1.000 -1.000')
        log.val(epoch, max_epochs, len(val_loader),
                {'toy/bbox_mAP': ap, 'toy/bbox_mAP_50': ap50, 'toy/bbox_mAP_75': ap75}, el, el * 0.1)


if __name__ == '__main__':
    main()
