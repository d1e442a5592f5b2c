model = XGBRegressor(seed=X, alpha=X, colsample_bylevel=X, colsample_bynode=X, colsample_bytree=X, eta=X, gamma=X, reg_lambda=X, max_depth=X, min_child_weight=X, subsample=X, n_estimators=X)
model.fit(X, y)
model.save_model('savedModel12-7')

# loading the model with new information:
model = XGBRegressor(seed=X, alpha=X, colsample_bylevel=X, colsample_bynode=X, colsample_bytree=X, eta=X, gamma=X, reg_lambda=X, max_depth=X, min_child_weight=X, subsample=X, n_estimators=X)
model.load_model('savedModel12-7')
model.fit(X,y)
predicted=model.predict(X.tail(1))
