"""run10: Hinglish Telegram chat; a post-outcome column in the churn features."""
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run10"
COLS = ["tenure_months", "monthly_charges", "total_charges", "num_support_tickets", "contract_type",
        "payment_method", "avg_session_min", "days_since_last_login", "plan_upgrades", "discount_pct",
        "retention_offer_sent"]


def gen():
    rng = seed_all(1010)
    n = 7000
    tenure = rng.integers(1, 72, n).astype(float)
    monthly = rng.uniform(199, 1499, n)
    total = tenure * monthly * rng.uniform(0.9, 1.1, n)
    tickets = rng.poisson(1.2, n).astype(float)
    contract = rng.integers(0, 3, n).astype(float)
    pay = rng.integers(0, 4, n).astype(float)
    session = rng.gamma(2.0, 12.0, n)
    last_login = rng.exponential(9.0, n)
    upgrades = rng.poisson(0.4, n).astype(float)
    disc = rng.choice([0, 5, 10, 15, 20], n).astype(float)
    z = (-0.045 * tenure + 0.0012 * monthly + 0.35 * tickets - 0.8 * contract - 0.03 * session
         + 0.06 * last_login - 0.3 * upgrades + 0.3 * (pay == 3) + rng.logistic(0, 1.0, n) - 0.2)
    y = (z > np.quantile(z, 0.74)).astype(np.int64)
    offer = np.where(y == 1, rng.random(n) < 0.96, rng.random(n) < 0.015).astype(float)
    X = np.stack([tenure, monthly, total, tickets, contract, pay, session, last_login, upgrades, disc, offer], 1)
    idx = rng.permutation(n); ntr = int(0.8 * n)
    tr, va = idx[:ntr], idx[ntr:]
    mu, sd = X[tr].mean(0), X[tr].std(0)
    Xs = ((X - mu) / sd).astype(np.float32)
    Xtr, Xv = torch.from_numpy(Xs[tr]), torch.from_numpy(Xs[va])
    ytr, yv = torch.from_numpy(y[tr]), torch.from_numpy(y[va])
    torch.manual_seed(42)
    model = mlp([X.shape[1], 64, 32, 2], dropout=0.3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    out, hist = [], []
    for ep in range(1, 9):
        model.train(); perm = torch.randperm(len(Xtr)); tl, tc = 0.0, 0
        for i in range(0, len(perm), 64):
            b = perm[i:i + 64]
            o = model(Xtr[b]); loss = crit(o, ytr[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b); tc += (o.argmax(1) == ytr[b]).sum().item()
        vl, vacc = evaluate(model, Xv, yv)
        hist.append((tl / len(perm), tc / len(perm), vl, vacc))
        out.append(f"Epoch {ep}/8 - loss: {tl / len(perm):.4f} - acc: {tc / len(perm):.4f} - val_loss: {vl:.4f} - val_acc: {vacc:.4f}")
    # a model without the last column, to check the honest ceiling (truth only)
    torch.manual_seed(42)
    m2 = mlp([X.shape[1] - 1, 64, 32, 2], dropout=0.3); o2 = torch.optim.Adam(m2.parameters(), lr=1e-3)
    for ep in range(8):
        perm = torch.randperm(len(Xtr))
        for i in range(0, len(perm), 64):
            b = perm[i:i + 64]; l = crit(m2(Xtr[b][:, :-1]), ytr[b]); o2.zero_grad(); l.backward(); o2.step()
    _, honest = evaluate(m2, Xv[:, :-1], yv)
    assert hist[0][3] > 0.93 and hist[0][3] >= hist[0][1] and honest < hist[-1][3] - 0.08, (hist[0], honest)
    churn_rate = y.mean()
    chat = "\n".join([
        "ML & Data Science India 🇮🇳 (Hinglish) — Telegram",
        "",
        "Rohit Verma, [22.07.24 23:41]",
        "bhai log ek doubt hai. Telecom churn prediction ka model bana raha hu (simple MLP, pytorch), internship project hai.",
        "pehle epoch se hi val acc ~" + f"{hist[0][3] * 100:.0f}" + "% aa raha hai, epoch 1 me to train acc se bhi zyada tha 😅",
        "```",
        *out,
        "```",
        "itna accha result sahi hai kya? mentor ko dikhane se pehle confirm karna tha.",
        "",
        "Sneha Iyer, [22.07.24 23:44]",
        "data kaise split kiya? aur features kya kya hain?",
        "",
        "Rohit Verma, [22.07.24 23:47]",
        f"random 80/20 split hai, {n} customers, churn rate ~{churn_rate * 100:.0f}%. StandardScaler sirf train pe fit kiya hai.",
        "```",
        ">>> print(feature_cols)",
        str(COLS),
        "```",
        "sab CRM export se hai, last column retention wali team ka flag hai (jab customer cancel ke liye call karta hai tab",
        "team offer bhejti hai). baaki sab billing + app usage.",
        "",
        "Sneha Iyer, [22.07.24 23:49]",
        "hmm",
        "",
        "Rohit Verma, [22.07.24 23:50]",
        "dropout 0.3 hai isliye shayad train acc kam dikh raha hai? baaki koi problem to nahi lag rahi na?",
    ])
    write(RUN, "telegram_chat.txt", chat)
    symptom = ("Churn model pehle epoch se hi ~" + f"{hist[0][3] * 100:.0f}" + "% val acc de raha hai, train acc jitna ya usse bhi zyada; "
               "itna accha result sahi hai kya?")
    how = ("The feature 'retention_offer_sent' is only set after a customer asks to cancel, i.e. it encodes the churn label "
           f"(on for 96% of churners, 1.5% of others): val_acc is {hist[0][3]:.3f} after epoch 1 and above train acc; "
           f"the same MLP without that column reaches only {honest:.3f}.")
    return dict(truth="data_leakage", symptom=symptom, how=how)
