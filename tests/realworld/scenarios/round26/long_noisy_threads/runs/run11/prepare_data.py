"""Build the training table for the churn model.

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
