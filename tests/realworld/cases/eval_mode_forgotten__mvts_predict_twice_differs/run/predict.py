xc, yc, xt, _ = test_samples
yt_pred1 = forecaster.predict(xc, yc, xt)
print("yt_pred 1[0][0]:")
print(yt_pred1[0][0])
yt_pred2 = forecaster.predict(xc, yc, xt)
print("yt_pred 2[0][0]:")
print(yt_pred2[0][0])
