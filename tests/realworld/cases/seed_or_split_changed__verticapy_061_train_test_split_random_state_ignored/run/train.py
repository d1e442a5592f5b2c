base = load_titanic()
train,test = base.train_test_split(order_by = ["name"], test_size = 0.3, random_state=42)
train.shape()
test.shape()
