myLM2 = SGDRegressor(verbose=1, n_iter_no_change=10)
with DisplayLossCurve():
  myLM2.fit(X, Y)
