"""Synthetic data sets for the scenario runs (numpy only, seeded)."""
import numpy as np


def _rot(rng, d):
    q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    return q


def gmm_classification(n, d, k, seed, sep=1.6, sub=3, noise=1.0):
    """k classes, each a mixture of `sub` gaussian blobs, passed through a smooth warp."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(k, sub, d)) * sep
    y = rng.integers(0, k, n)
    s = rng.integers(0, sub, n)
    x = centers[y, s] + rng.normal(size=(n, d)) * noise
    r = _rot(rng, d)
    x = np.tanh(x @ r / 2.5) * 2.5 + 0.15 * x
    return x.astype(np.float32), y.astype(np.int64)


def churn_table(n, seed):
    """Tabular churn data: 13 honest features with a weak signal + one post-outcome column."""
    rng = np.random.default_rng(seed)
    tenure = rng.gamma(2.0, 14.0, n)
    monthly = rng.normal(70, 25, n).clip(15, 160)
    total = tenure * monthly * rng.normal(1, 0.05, n)
    tickets = rng.poisson(1.2, n)
    contract = rng.integers(0, 3, n)           # month-to-month / 1y / 2y
    payment = rng.integers(0, 4, n)
    senior = (rng.random(n) < 0.16).astype(float)
    dependents = (rng.random(n) < 0.3).astype(float)
    paperless = (rng.random(n) < 0.6).astype(float)
    streaming = (rng.random(n) < 0.4).astype(float)
    logins = rng.poisson(9, n)
    discount = rng.random(n) * 0.3
    region = rng.integers(0, 5, n)
    logit = (-1.0 - 0.035 * (tenure - 28) + 0.018 * (monthly - 70) + 0.35 * (tickets - 1.2)
             - 0.9 * (contract == 1) - 1.6 * (contract == 2) + 0.4 * (payment == 2)
             - 0.06 * (logins - 9) + 0.3 * senior)
    churn = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    # CRM flag that is set by the cancellation workflow
    cancel_ticket = np.where(rng.random(n) < 0.985, churn, 1 - churn).astype(float)
    cols = {"tenure_months": tenure, "monthly_charges": monthly, "total_charges": total,
            "n_support_tickets": tickets, "contract_type": contract, "payment_method": payment,
            "senior_citizen": senior, "has_dependents": dependents, "paperless_billing": paperless,
            "streaming_tv": streaming, "logins_30d": logins, "discount_pct": discount,
            "region_id": region, "cancellation_ticket_open": cancel_ticket}
    return cols, churn


def delivery_regression(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 12))
    w = rng.normal(size=12)
    z = np.tanh(x @ w / 3) + 0.3 * x[:, 1] * x[:, 2]
    y = np.exp(z) * 2.4e4 + 3000 + rng.normal(0, 2000, n)
    return x.astype(np.float32), y.astype(np.float32)
