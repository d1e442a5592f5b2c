CONFIG = {
    "experiment": "churn_segments_v3",
    "n_train": 320,
    "n_val": 880,
    "hidden_units": [
        512,
        512,
        256
    ],
    "activation": "relu",
    "dropout": 0.0,
    "optimizer": "adam",
    "learning_rate": 0.0003,
    "batch_size": 32,
    "epochs": 200,
    "seed": 101
}
