def lr_factor(schedulers, step, epoch, iters_per_epoch):
    """Product of the mmengine-style schedulers active at (step, epoch)."""
    if isinstance(schedulers, dict):
        schedulers = [schedulers]
    f = 1.0
    for s in schedulers:
        by_epoch = s.get('by_epoch', True)
        pos = epoch if by_epoch else step
        begin = s.get('begin', 0)
        end = s.get('end', 10 ** 9)
        if s['type'] == 'LinearLR':
            if pos < begin:
                continue
            t = min(pos, end) - begin
            span = max(end - begin, 1)
            sf, ef = s.get('start_factor', 1 / 3), s.get('end_factor', 1.0)
            f *= sf + (ef - sf) * t / span
        elif s['type'] == 'MultiStepLR':
            f *= s.get('gamma', 0.1) ** sum(1 for m in s['milestones'] if pos >= m)
        elif s['type'] == 'CosineAnnealingLR':
            if pos < begin:
                continue
            T = s['T_max']
            t = min(pos - begin, T)
            f *= s.get('eta_min_ratio', 0.0) + (1 - s.get('eta_min_ratio', 0.0)) * 0.5 * (1 + math.cos(math.pi * t / T))
        elif s['type'] == 'ConstantLR':
            if begin <= pos < end:
                f *= s.get('factor', 1 / 3)
    return f
