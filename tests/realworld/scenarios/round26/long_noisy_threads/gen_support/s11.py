"""run11: a feature built from post-outcome CRM events (retention calls) -> near-perfect val, collapse on fresh data."""
import random, datetime as dt
from common import *
from thread import GHIssue, code, details, when
import noise

PREP_PY = '''"""Build the training table for the churn model.

snapshot: customers active at the start of the quarter; label = churned before the end of the quarter.
"""
import pandas as pd
from sklearn.model_selection import train_test_split

SNAP = "2024-04-01"
END = "2024-06-30"

cust = pd.read_parquet("raw/customers.parquet")              # one row per customer
usage = pd.read_parquet("raw/usage_daily.parquet")          # daily usage per customer
tickets = pd.read_parquet("raw/support_tickets.parquet")
crm = pd.read_parquet("raw/crm_activities.parquet")          # calls / emails logged by the account team

cust = cust[(cust.signup_date < SNAP) & ((cust.closed_at.isna()) | (cust.closed_at >= SNAP))]
cust["churned"] = cust.closed_at.between(SNAP, END).astype(int)

u = usage[usage.day < SNAP].groupby("customer_id").agg(
    usage_90d=("minutes", lambda s: s.tail(90).sum()),
    usage_trend=("minutes", lambda s: s.tail(30).mean() / (s.tail(90).mean() + 1e-6)),
    active_days_90d=("minutes", lambda s: (s.tail(90) > 0).sum()),
)
t = tickets[tickets.created < SNAP].groupby("customer_id").agg(
    tickets_180d=("ticket_id", "count"),
    mean_resolution_h=("resolution_hours", "mean"),
)
c = crm[crm.activity_date <= END].groupby("customer_id").agg(
    crm_touches=("activity_id", "count"),
    retention_calls=("is_retention_call", "sum"),
)

df = (cust.set_index("customer_id")
          .join(u).join(t).join(c)
          .fillna({"tickets_180d": 0, "mean_resolution_h": 0, "crm_touches": 0, "retention_calls": 0}))
FEATURES = ["tenure_months", "plan_tier", "monthly_fee", "seats", "usage_90d", "usage_trend", "active_days_90d",
            "tickets_180d", "mean_resolution_h", "discount_pct", "payment_failures_12m", "crm_touches", "retention_calls"]

train, val = train_test_split(df, test_size=0.2, random_state=42, stratify=df.churned)
train[FEATURES + ["churned"]].to_parquet("data/churn_train.parquet")
val[FEATURES + ["churned"]].to_parquet("data/churn_val.parquet")
print(f"train {len(train)}  val {len(val)}  churn rate {df.churned.mean():.3f}")
'''

FEATS = ["tenure_months", "plan_tier", "monthly_fee", "seats", "usage_90d", "usage_trend", "active_days_90d",
         "tickets_180d", "mean_resolution_h", "discount_pct", "payment_failures_12m", "crm_touches", "retention_calls"]


def auc(score, y):
    order = np.argsort(score)
    ranks = np.empty(len(score)); ranks[order] = np.arange(1, len(score) + 1)
    pos = y == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


def population(n, seed, crm_known):
    r = np.random.default_rng(seed)
    X = r.standard_normal((n, 11)).astype(np.float32)
    w = np.array([-0.9, -0.3, 0.4, -0.2, -0.8, -0.7, -0.5, 0.6, 0.4, -0.3, 0.8])
    logit = X @ w + 0.6 * np.sin(X[:, 0] * X[:, 4]) - 1.9
    y = (r.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    touches = r.poisson(1.2, n) + (y * r.poisson(1.5, n) if crm_known else 0)
    calls = np.where(y == 1, r.poisson(2.2, n), r.poisson(0.03, n)) if crm_known else np.zeros(n)
    F_ = np.column_stack([X, touches, calls]).astype(np.float32)
    return F_, y


def build(out):
    r = random.Random(1111)
    Xall, yall = population(12000, 160, True)
    rs = np.random.default_rng(42)
    idx = rs.permutation(len(Xall)); tr, va = idx[:9600], idx[9600:]
    mu, sd = Xall[tr].mean(0), Xall[tr].std(0)
    norm = lambda A: torch.tensor((A - mu) / sd)
    X, y, Xv, yv = norm(Xall[tr]), torch.tensor(yall[tr]), norm(Xall[va]), torch.tensor(yall[va])
    Xp_raw, yp = population(5000, 161, False)            # next quarter, scored on its first day
    Xp = norm(Xp_raw)

    torch.manual_seed(0)
    m = mlp(13, 64, 2, depth=2, dropout=0.1)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    lines = [f"train {len(X)}  val {len(Xv)}  churn rate {yall.mean():.3f}", "features: " + ", ".join(FEATS)]
    rows = []
    for ep in range(1, 9):
        m.train()
        tot, n = 0.0, 0
        for xb, yb in batches(X, y, 128, True, g):
            opt.zero_grad()
            loss = F.cross_entropy(m(xb), yb)
            loss.backward(); opt.step()
            tot += loss.item() * len(xb); n += len(xb)
        m.eval()
        with torch.no_grad():
            pv = F.softmax(m(Xv), 1)[:, 1].numpy()
            pt = F.softmax(m(X), 1)[:, 1].numpy()
        vl = F.cross_entropy(m(Xv), yv).item()
        rows.append((ep, tot / n, auc(pt, y.numpy()), vl, auc(pv, yv.numpy()), ((pv > 0.5) == yv.numpy()).mean()))
        lines.append(f"epoch {ep} | train_loss {tot / n:.4f} train_auc {rows[-1][2]:.4f} | val_loss {vl:.4f} "
                     f"val_auc {rows[-1][4]:.4f} val_acc {rows[-1][5]:.4f}")
    with torch.no_grad():
        pp = F.softmax(m(Xp), 1)[:, 1].numpy()
    prod_auc = auc(pp, yp)
    prod_flag = (pp > 0.5)
    prod_recall = (prod_flag & (yp == 1)).sum() / (yp == 1).sum()
    prod_prec = (prod_flag & (yp == 1)).sum() / max(prod_flag.sum(), 1)
    val_flag = pv > 0.5
    val_recall = (val_flag & (yv.numpy() == 1)).sum() / (yv.numpy() == 1).sum()
    # permutation importance on val (AUC drop), one shuffle per feature
    pr = np.random.default_rng(7)
    base_auc = auc(pv, yv.numpy())
    imp = []
    for j, f in enumerate(FEATS):
        Xs = Xv.clone(); Xs[:, j] = Xs[torch.tensor(pr.permutation(len(Xs))), j]
        with torch.no_grad():
            imp.append((f, base_auc - auc(F.softmax(m(Xs), 1)[:, 1].numpy(), yv.numpy())))
    imp.sort(key=lambda t: -t[1])
    # the retrain-with-more-regularisation suggestion: dropout 0.5 + wd, 4 epochs
    torch.manual_seed(1)
    m2 = mlp(13, 64, 2, depth=2, dropout=0.5)
    o2 = torch.optim.AdamW(m2.parameters(), lr=1e-3, weight_decay=0.1)
    g2 = torch.Generator().manual_seed(1)
    for ep in range(4):
        m2.train()
        for xb, yb in batches(X, y, 128, True, g2):
            o2.zero_grad(); F.cross_entropy(m2(xb), yb).backward(); o2.step()
    m2.eval()
    with torch.no_grad():
        v2 = auc(F.softmax(m2(Xv), 1)[:, 1].numpy(), yv.numpy()); p2 = auc(F.softmax(m2(Xp), 1)[:, 1].numpy(), yp)

    write(f"{out}/prepare_data.py", PREP_PY)
    write(f"{out}/train_log.txt", "\n".join(lines))
    base = dt.datetime(2024, 10, 14, 9, 5)
    iss = GHIssue("northwind-analytics/churn-model", 17,
                  f"Val AUC {rows[-1][4]:.3f} but only {prod_auc:.2f} on the Q3 shadow run — distribution shift?", "e-marchetti", base,
                  labels=["model-quality"])
    iss.comment("e-marchetti", base, f"""We retrained the churn MLP on the Q2 snapshot (features from `prepare_data.py`, attached). Offline it looks amazing, val AUC is ~0.99 already after the first epoch:

{code(chr(10).join(lines[2:5]) + chr(10) + '...' + chr(10) + lines[-1])}

We then ran it in shadow mode on all customers active on July 1st, and now that Q3 is closed we compared the scores with who actually churned (labels from the billing system):

{code(f'''Q3 shadow ({len(yp)} customers, churn rate {yp.mean():.3f})
AUC        {prod_auc:.4f}
precision  {prod_prec:.4f}   (threshold 0.5)
recall     {prod_recall:.4f}   (val recall at 0.5 was {val_recall:.4f})''')}

My guess is that Q3 customers are just different (we had a price change in June). Would more regularisation help it generalise, or do we need to retrain every month?

📎 prepare_data.py 📎 train_log.txt""")
    iss.comment("d-hoang", when(base, hours=2), "Price change = concept drift, classic. You'll need to retrain on recent data, "
                "maybe weight the last weeks higher.")
    iss.comment("s-kaur", when(base, hours=3), "0.99 AUC on churn is suspicious on its own tbh, nobody gets that. But the train "
                "and val curves look identical, so at least you're not overfitting.")
    iss.comment("e-marchetti", when(base, hours=5), f"""I tried the regularisation route anyway (dropout 0.5 + AdamW wd=0.1, 4 epochs):

{code(f'''val AUC   {v2:.4f}
Q3 AUC    {p2:.4f}''')}

No real change.""")
    iss.comment("tomas-g", when(base, hours=8), "Could it be the feature scaling? If you fit the scaler on Q2 and the price change moved "
                "`monthly_fee`, everything downstream of the first layer shifts. Try refitting the scaler on Q3.")
    iss.comment("e-marchetti", when(base, days=1, hours=1), "The scaler is fit on the Q2 train split and saved with the model, as it "
                "should be. Refitting it on the Q3 data at scoring time would defeat the point of a frozen model, no?")
    iss.comment("d-hoang", when(base, days=1, hours=3), "Our scoring cluster for reference, in case it's an env thing:\n\n" +
                details("collect_env", code(noise.collect_env(r))))
    iss.comment("s-kaur", when(base, days=1, hours=6), "Can you post a feature importance? Would help to see what the model leans on.")
    iss.comment("e-marchetti", when(base, days=2), "Permutation importance on the val split (drop in AUC when the column is shuffled):\n\n" +
                code("\n".join(f"{f:<22} {d:+.4f}" for f, d in imp)) + "\n\nMakes sense that engagement with the account team matters a lot.")
    iss.comment("tomas-g", when(base, days=2, hours=2), "Price-sensitive customers would show up in `discount_pct` and `monthly_fee`, "
                "and those are near the bottom... so maybe it's not the price change after all? Could be a pipeline bug in the shadow job.")
    iss.comment("e-marchetti", when(base, days=2, hours=5), "The shadow job calls the same `prepare_data.py` with SNAP=2024-07-01 and "
                "END=2024-07-01 (we can't know the future), otherwise identical. @s-kaur what would you check next?")
    iss.comment("d-hoang", when(base, days=3), "I'd try a GBM as a sanity check, MLPs on tabular data are brittle under drift.")
    write(f"{out}/thread.md", iss.render())
    return {"truth": "data_leakage",
            "symptom": f"Our churn model has ~0.99 val AUC from the first epoch but only {prod_auc:.2f} AUC (and almost no "
                       "recall) on next quarter's customers in the shadow run.",
            "how": f"prepare_data.py aggregates CRM activities up to END (the end of the label window), so `retention_calls` "
                   f"(logged after a customer asks to cancel) encodes the label: val AUC {rows[0][4]:.3f} at epoch 1 and equal to "
                   f"train, permutation importance dominated by it ({imp[0][1]:+.3f}), while at scoring time the column is 0 "
                   f"and Q3 AUC is {prod_auc:.3f}, recall {prod_recall:.2f}."}
