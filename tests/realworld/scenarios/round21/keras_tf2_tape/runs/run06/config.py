# experiment config
config = {
    "name": "segments-5cls",
    "features": 20,
    "classes": 5,
    "units": [
        128,
        128
    ],
    "optimizer": "adam",
    "lr": 0.08,
    "lr_schedule": "constant",
    "batch_size": 32,
    "epochs": 15,
    "log_every_steps": 20,
    "summary_dir": "tb/segments-5cls",
    "seed": 606
}
