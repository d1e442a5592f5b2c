from fastai.tabular.all import *
import pandas as pd
from sklearn.metrics import classification_report, roc_auc_score

pd.set_option("display.max_columns", None)
pd.set_option("display.width", 120)

df = pd.read_csv("data/adult_income_train.csv")
print(df.shape)
print(df.head())
print(df.dtypes)
print(df["income"].value_counts())

cat_names = ["workclass", "education", "marital_status", "occupation", "sex"]
cont_names = ["age", "education_num", "capital_gain", "hours_per_week"]
splits = RandomSplitter(valid_pct=0.2, seed=42)(range_of(df))

to = TabularPandas(df, procs=[Categorify, FillMissing, Normalize],
                   cat_names=cat_names, cont_names=cont_names,
                   y_names="income", y_block=CategoryBlock(), splits=splits)
dls = to.dataloaders(bs=256)

learn = tabular_learner(dls, layers=[200, 100], metrics=[accuracy, RocAucBinary()])
learn.fit_one_cycle(12, 3e-3)

test_df = pd.read_csv("data/adult_income_test.csv")
dl = learn.dls.test_dl(test_df)
probs, _ = learn.get_preds(dl=dl)
y_true = (test_df["income"] == ">50K").astype(int).values
y_pred = probs.argmax(1).numpy()
print(classification_report(y_true, y_pred, target_names=["<=50K", ">50K"]))
print("ROC AUC:", roc_auc_score(y_true, probs[:, 1].numpy()))
learn.export("models/income_v3.pkl")
