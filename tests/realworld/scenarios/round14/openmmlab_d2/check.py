"""Summarise each run's curves from the shipped files only (scalars.json / metrics.json)."""
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = {'base_lr', 'data_time', 'time', 'epoch', 'iter', 'step', 'eta_seconds', 'rank_data_time',
        'last_time', 'iteration'}


def pick(rows, n):
    k = max(1, len(rows) // n)
    out = rows[::k]
    return out if out[-1] is rows[-1] else out + [rows[-1]]


def fmt(r, keys):
    return ','.join(f'{k}={r[k]:.3g}' for k in keys if k in r)


for rd in sorted(glob.glob(os.path.join(HERE, 'runs', '*'))):
    name = os.path.basename(rd)
    truth = json.load(open(os.path.join(HERE, 'truth.json')))[name]['truth']
    print(f'===== {name} ({truth})')
    sj = glob.glob(os.path.join(rd, '*', 'vis_data', 'scalars.json'))
    if sj:
        rows = [json.loads(l) for l in open(sj[0])]
        tr = [r for r in rows if 'lr' in r]
        ev = [r for r in rows if 'lr' not in r]
        tk = [k for k in tr[0] if k not in SKIP]
        ek = [k for k in ev[0] if k not in SKIP]
        print(' train', ' | '.join(f"e{r['epoch']}/it{r['iter']}: " + fmt(r, tk) for r in pick(tr, 10)))
        print(' val  ', ' | '.join(f"e{r['step']}: " + fmt(r, ek) for r in pick(ev, 10)))
    else:
        mj = glob.glob(os.path.join(rd, '**', 'metrics.json'), recursive=True)[0]
        rows = [json.loads(l) for l in open(mj)]
        tr = [r for r in rows if 'total_loss' in r]
        ev = [r for r in rows if 'total_loss' not in r]
        tk = [k for k in tr[0] if k not in SKIP]
        ek = [k for k in ev[0] if k not in SKIP]
        print(' train', ' | '.join(f"it{r['iteration']}: " + fmt(r, tk) for r in pick(tr, 10)))
        print(' eval ', ' | '.join(f"it{r['iteration']}: " + fmt(r, ek) for r in pick(ev, 10)))
        txt = [f for f in glob.glob(os.path.join(rd, '**', '*.*'), recursive=True) if f.endswith(('.txt', '.log'))]
        for f in txt:
            tail = open(f).read().splitlines()[-2:]
            print(' log tail:', ' / '.join(t[:150] for t in tail))
