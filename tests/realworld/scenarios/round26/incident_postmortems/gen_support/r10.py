"""run10: return-reason classifier crashes mid-epoch with IndexError in the loss."""
import traceback, re, time
from common import *

RUN = "run10"
REASONS = ["wrong_size", "damaged_in_transit", "not_as_described", "arrived_late", "changed_mind",
           "defective", "missing_parts", "wrong_item", "better_price", "gift_unwanted"]


def make():
    rng = np.random.default_rng(1010)
    T = Teacher(rng, 20, 10, hidden=10)
    X, Y = T.sample(rng, 20000)
    # shard 2024-09 introduces a new reason code from the returns portal; label ids come from sorted(set(...))
    new_rows = rng.choice(len(Y), 2, replace=False)
    Y = Y.copy()
    Y[new_rows] = 10
    return torch.tensor(X), torch.tensor(Y)


def attempt(X, Y, seed):
    torch.manual_seed(seed)
    model = mlp(20, 10, 64)
    opt = torch.optim.Adam(model.parameters(), 1e-3, foreach=True)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(seed)
    logged, step = [], 0
    t0 = time.perf_counter()
    for ep in range(1, 4):
        for b in batches(len(X), 64, g):
            step += 1
            try:
                loss = lf(model(X[b]), Y[b])
            except IndexError as e:
                tb = traceback.extract_tb(e.__traceback__)
                return dict(step=step, epoch=ep, logged=logged, err=f"{type(e).__name__}: {e}", tb=tb)
            opt.zero_grad(); loss.backward(); opt.step()
            if step % 20 == 0:
                logged.append((ep, step, loss.item(), time.perf_counter() - t0))
    return dict(step=None)


def fmt_tb(tb):
    out = ["Traceback (most recent call last):",
           '  File "/opt/returns-ml/train.py", line 118, in <module>',
           "    main()",
           '  File "/opt/returns-ml/train.py", line 97, in main',
           "    loss = criterion(logits, batch[\"label\"])",
           "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"]
    for fr in tb[1:]:
        path = re.sub(r"^.*?/site-packages/", "/opt/conda/lib/python3.11/site-packages/", fr.filename)
        out.append(f'  File "{path}", line {fr.lineno}, in {fr.name}')
        out.append(f"    {fr.line}")
    return out


def build():
    X, Y = make()
    a = attempt(X, Y, 1234)
    b = attempt(X, Y, 99)
    c = attempt(X, Y, 2024)
    assert a["step"] and b["step"] and c["step"]
    n_lab = len(set(Y.tolist()))
    spe = math.ceil(len(X) / 64)
    log = [f"2024-09-16 08:41:02 INFO  build_label_map: {n_lab} labels found in shards "
           f"returns_2024-06..returns_2024-09 -> data/label_map.json",
           f"2024-09-16 08:41:03 INFO  model: TabularMLP(in=20, hidden=64, num_classes=10)",
           f"2024-09-16 08:41:03 INFO  train rows={len(X)} batch=64 steps/epoch={spe}"]
    for ep, st, lv, t in a["logged"][-4:]:
        log.append(f"2024-09-16 08:41:{4 + int(t * 30):02d} INFO  ep={ep} step={st} loss={lv:.4f}")
    body = "\n".join(log + fmt_tb(a["tb"]) + [a["err"]])
    doc = f"""# Incident note: returns-reason training job crashes (IndexError in loss)

**Status:** open · **Reporter:** F. Osei · **Root cause:** TBD — suspect flaky NFS reads of the new shard
(crash step changes between runs)

**What happened.** Since the 2024-09 shard was added, the weekly training of the return-reason classifier
(10 reasons) dies in epoch {a['epoch']} with an `IndexError` inside the loss. We reran it twice; it crashed again
each time but at a different step (step {a['step']}, {b['step']}, {c['step']}), which is why we think this is an I/O
issue rather than code: the code did not change.

**Impact.** No weekly model since 09-16; the 09-09 model keeps serving.

**Timeline.**
- 09-16 08:41 job starts, crashes at step {a['step']} (log below).
- 09-16 10:05 rerun → crash at step {b['step']}.
- 09-16 13:20 rerun on another node → crash at step {c['step']}.

**Log excerpt (run 1):**
```
{body}
```

**Config excerpt (`configs/returns.yaml`):**
```yaml
model:
  hidden: 64
  num_classes: 10
data:
  shards: [returns_2024-06, returns_2024-07, returns_2024-08, returns_2024-09]
  label_map: data/label_map.json   # rebuilt from the shards at start-up
```

**Action items.** [ ] copy shards to local disk before training (@f.osei) · [ ] ask infra about NFS errors on 09-16
"""
    write(RUN, "incident-returns-training-crash.md", doc)
    return {"truth": "label_out_of_range",
            "symptom": "Our weekly training now crashes partway through the first epoch with an IndexError in the loss, at a different step every time we rerun. The code hasn't changed — what's going on?",
            "how": f"The 2024-09 shard adds an 11th reason code, the label map rebuilt at start-up has {n_lab} labels but the model head has num_classes=10, so the first batch that holds one of the 2 rows with label id 10 raises 'IndexError: Target 10 is out of bounds.'; the step depends on the shuffle order ({a['step']}, {b['step']}, {c['step']})."}
