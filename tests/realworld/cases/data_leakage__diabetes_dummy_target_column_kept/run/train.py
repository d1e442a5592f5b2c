import pandas as pd

data = pd.read_csv("db_diabetes.csv")

data = pd.get_dummies(data, columns=["Diabetes_binary","Sex","HairColor"])

data.dropna(inplace=True)

X = data.loc[:, data.columns != "Diabetes_binary_diabetes"]
y = data["Diabetes_binary_diabetes"]

import sklearn
from sklearn.model_selection import train_test_split
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size
