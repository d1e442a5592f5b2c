import xgboost as xgb
import numpy as np

data = np.random.rand(10,1)
labels = np.random.rand(10,1) > 0.5
train = xgb.DMatrix(data, label=labels)
predict = xgb.DMatrix(np.random.rand(1,1))

param = {'booster': 'dart', 
         'silent':'1'}
bst = xgb.Booster()
bst = xgb.train(param.items(), train)
bst.save_model("xgb_test.bin")

for i in range(0,10): #run load model and prediction ten times to see difference
    bst = xgb.Booster()
    bst.load_model('xgb_test.bin')
    new_value = bst.predict(predict)
    print(new_value)
    if i == 0:
        last_value = new_value
    if last_value != new_value:
        raise SystemExit
