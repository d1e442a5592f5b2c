pip install pytorch-lightning
pip install pytorch-forecasting
# (snip)
# For pl.Trainer,
#gpus=0,
gpus=-1, auto_select_gpus=True,
