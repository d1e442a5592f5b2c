def __init__(self, loss_func=CrossEntropyLoss(), batch_size=64):
