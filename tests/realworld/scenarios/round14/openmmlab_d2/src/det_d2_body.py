

def build_cfg(args):
    cfg = {
        'VERSION': 2,
        'SEED': args['seed'],
        'OUTPUT_DIR': './output',
        'CUDNN_BENCHMARK': False,
        'DATASETS': {'TRAIN': ('shapes_train',), 'TEST': ('shapes_val',)},
        'DATALOADER': {'NUM_WORKERS': 2, 'ASPECT_RATIO_GROUPING': True, 'SAMPLER_TRAIN': 'TrainingSampler',
                       'FILTER_EMPTY_ANNOTATIONS': True},
        'INPUT': {'FORMAT': 'L', 'MIN_SIZE_TRAIN': (24,), 'MAX_SIZE_TRAIN': 24, 'MIN_SIZE_TEST': 24,
                  'MAX_SIZE_TEST': 24, 'RANDOM_FLIP': 'none'},
        'MODEL': {'META_ARCHITECTURE': 'ToyDetector', 'DEVICE': 'cpu', 'WEIGHTS': '',
                  'PIXEL_MEAN': [0.0], 'PIXEL_STD': [1.0],
                  'BACKBONE': {'NAME': 'build_toy_backbone', 'FREEZE_AT': 0},
                  'ROI_HEADS': {'NUM_CLASSES': 3, 'BATCH_SIZE_PER_IMAGE': 1},
                  'ROI_BOX_HEAD': {'BBOX_REG_LOSS_TYPE': 'smooth_l1', 'SMOOTH_L1_BETA': 0.0,
                                   'BBOX_REG_LOSS_WEIGHT': 1.0, 'FC_DIM': 128, 'NUM_CONV': 3,
                                   'CONV_DIM': args['width']}},
        'SOLVER': {'OPTIMIZER': 'SGD', 'BASE_LR': args['base_lr'], 'MOMENTUM': 0.9, 'NESTEROV': False,
                   'WEIGHT_DECAY': 0.0001, 'WEIGHT_DECAY_NORM': 0.0, 'IMS_PER_BATCH': args['ims_per_batch'],
                   'MAX_ITER': args['max_iter'], 'LR_SCHEDULER_NAME': 'WarmupMultiStepLR',
                   'STEPS': tuple(args['steps']), 'GAMMA': 0.1, 'WARMUP_FACTOR': 0.001,
                   'WARMUP_ITERS': args['warmup_iters'], 'WARMUP_METHOD': 'linear',
                   'CHECKPOINT_PERIOD': args['eval_period'],
                   'CLIP_GRADIENTS': {'ENABLED': False, 'CLIP_TYPE': 'value', 'CLIP_VALUE': 1.0,
                                      'NORM_TYPE': 2.0}},
        'TEST': {'EVAL_PERIOD': args['eval_period'], 'DETECTIONS_PER_IMAGE': 1},
    }
    return cfg


def lr_at(cfg, it):
    s = cfg['SOLVER']
    if it < s['WARMUP_ITERS']:
        alpha = it / s['WARMUP_ITERS']
        warm = s['WARMUP_FACTOR'] * (1 - alpha) + alpha
    else:
        warm = 1.0
    n_drops = sum(1 for m in s['STEPS'] if m <= it)
    return s['BASE_LR'] * warm * s['GAMMA'] ** n_drops


def main(args):
    torch.set_num_threads(1)
    torch.manual_seed(args['seed'])
    np.random.seed(args['seed'])
    cfg = build_cfg(args)
    out = cfg['OUTPUT_DIR']
    ev = D2Events(out, log_name=args.get('log_name', 'log.txt'), console_style=args.get('console', False))
    ev.info('detectron2', 'Rank of current process: 0. World size: 1')
    ev.info('detectron2', f'Environment info:\nsys.platform  {sys.platform}\nPython  {sys.version.split()[0]}\n'
            f'numpy  {np.__version__}\nPyTorch  {torch.__version__}\nPyTorch debug build  False\n'
            'GPU available  No: torch.cuda.is_available(): False')
    ev.info('detectron2', f"Command line arguments: Namespace(config_file='configs/{args['cfg_name']}', "
            "resume=False, eval_only=False, num_gpus=1, num_machines=1, machine_rank=0, opts=[])")
    text = yaml.safe_dump(json.loads(json.dumps(cfg)), sort_keys=True)
    ev.info('detectron2', 'Running with full config:\n' + text)
    with open(os.path.join(out, 'config.yaml'), 'w') as f:
        f.write(text)
    ev.info('detectron2', f"Full config saved to {out}/config.yaml")

    X, y, B = make_shapes(args['n_train'], args['seed'], noise=args['noise'])
    Xv, yv, Bv = make_shapes(args['n_val'], args['seed'] + 1, noise=args['noise'])
    X, y, B = torch.from_numpy(X), torch.from_numpy(y), torch.from_numpy(B)
    model = ToyDetector(3, args['width'])
    ev.info('detectron2.engine.defaults', 'Model:\n' + repr(model))
    s = cfg['SOLVER']
    opt = torch.optim.SGD(model.parameters(), lr=s['BASE_LR'], momentum=s['MOMENTUM'],
                          weight_decay=s['WEIGHT_DECAY'])
    ev.info('detectron2.data.build', f"Removed 0 images with no usable annotations. {len(y)} images left.")
    ev.info('detectron2.data.build', 'Using training sampler TrainingSampler')
    ev.info('detectron2.engine.train_loop', 'Starting training from iteration 0')
    g = torch.Generator().manual_seed(args['seed'])
    bs = s['IMS_PER_BATCH']
    perm, pos = torch.randperm(len(y), generator=g), 0
    t_start = time.perf_counter()
    for it in range(s['MAX_ITER']):
        t0 = time.perf_counter()
        if pos + bs > len(y):
            perm, pos = torch.randperm(len(y), generator=g), 0
        idx = perm[pos:pos + bs]
        pos += bs
        xb, yb, bb = X[idx], y[idx], B[idx]
        t1 = time.perf_counter()
        lr = lr_at(cfg, it)
        for grp in opt.param_groups:
            grp['lr'] = lr
        model.train()
        logits, boxes = model(xb)
        loss_cls = F.cross_entropy(logits, yb)
        loss_box = F.smooth_l1_loss(boxes, bb, beta=0.0, reduction="sum") / len(yb)
        total = loss_cls + loss_box
        acc = (logits.argmax(1) == yb).float().mean().item()
        if not torch.isfinite(total):
            ev.info('detectron2.engine.train_loop', 'Exception during training:', level='ERROR')
            msg = (f"Loss became infinite or NaN at iteration={it}!\nloss_dict = "
                   f"{{'loss_cls': {loss_cls.item()}, 'loss_box_reg': {loss_box.item()}}}")
            tb = ('Traceback (most recent call last):\n'
                  '  File "detectron2/engine/train_loop.py", line 155, in train\n    self.run_step()\n'
                  '  File "detectron2/engine/train_loop.py", line 310, in run_step\n'
                  '    self._write_metrics(loss_dict, data_time)\n'
                  '  File "detectron2/engine/train_loop.py", line 351, in _write_metrics\n'
                  '    raise FloatingPointError(\n'
                  f'FloatingPointError: {msg}')
            for line in tb.splitlines():
                ev._txt.write(line + '\n')
            print(tb)
            el = time.perf_counter() - t_start
            ev.info('detectron2.engine.hooks', f"Overall training speed: {it - 2} iterations in "
                    f"{datetime.timedelta(seconds=int(el))} ({el / max(it, 1):.4f} s / it)")
            ev.info('detectron2.engine.hooks', f"Total training time: {datetime.timedelta(seconds=int(el))} "
                    f"({datetime.timedelta(seconds=0)} on hooks)")
            ev._txt.flush()
            return
        opt.zero_grad()
        total.backward()
        opt.step()
        t2 = time.perf_counter()
        ev.put(total_loss=total.item(), loss_cls=loss_cls.item(), loss_box_reg=loss_box.item(),
               acc=acc, time=t2 - t0, data_time=t1 - t0)
        if (it + 1) % 20 == 0 or it == s['MAX_ITER'] - 1:
            ev.write(it, s['MAX_ITER'], ['loss_cls', 'loss_box_reg'], lr,
                     extra={'fast_rcnn/cls_accuracy': ev.median('acc')})
        if (it + 1) % cfg['TEST']['EVAL_PERIOD'] == 0 or it == s['MAX_ITER'] - 1:
            model.eval()
            ev.info('detectron2.data.common', f"Serialized dataset takes {len(yv) * 0.00234:.2f} MiB")
            ev.info('detectron2.evaluation.evaluator', f"Start inference on {len(yv)} batches")
            te = time.perf_counter()
            with torch.no_grad():
                lg, bx = model(torch.from_numpy(Xv))
            sc = torch.softmax(lg, 1).numpy()
            ap, ap50, ap75 = det_map(sc, None, bx.numpy(), yv, Bv)
            el = time.perf_counter() - te
            ev.info('detectron2.evaluation.evaluator', f"Total inference time: "
                    f"{datetime.timedelta(seconds=el)} ({el / len(yv):.6f} s / iter per device, on 1 devices)")
            res = {'bbox/AP': 100 * ap, 'bbox/AP50': 100 * ap50, 'bbox/AP75': 100 * ap75}
            ev.info('detectron2.evaluation.coco_evaluation', 'Evaluation results for bbox: \n'
                    '|   AP   |  AP50  |  AP75  |\n|:------:|:------:|:------:|\n'
                    f"| {res['bbox/AP']:.3f} | {res['bbox/AP50']:.3f} | {res['bbox/AP75']:.3f} |")
            ev.info('detectron2.engine.defaults', f"Evaluation results for shapes_val in csv format:")
            ev.info('detectron2.evaluation.testing', 'copypaste: Task: bbox')
            ev.info('detectron2.evaluation.testing', 'copypaste: AP,AP50,AP75')
            ev.info('detectron2.evaluation.testing',
                    f"copypaste: {res['bbox/AP']:.4f},{res['bbox/AP50']:.4f},{res['bbox/AP75']:.4f}")
            ev.write_eval(it, res)
    el = time.perf_counter() - t_start
    ev.info('detectron2.engine.hooks', f"Overall training speed: {s['MAX_ITER'] - 2} iterations in "
            f"{datetime.timedelta(seconds=int(el))} ({el / s['MAX_ITER']:.4f} s / it)")
    ev.info('detectron2.engine.hooks', f"Total training time: {datetime.timedelta(seconds=int(el))} "
            "(0:00:00 on hooks)")


if __name__ == '__main__':
    main(json.loads(sys.argv[1]))
