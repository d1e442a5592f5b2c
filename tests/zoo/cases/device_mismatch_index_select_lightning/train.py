import lightning as L

from data import ReviewsDataModule
from model import TextClassifier

if __name__ == "__main__":
    trainer = L.Trainer(accelerator="gpu", devices=1, max_epochs=5, val_check_interval=200)
    trainer.fit(TextClassifier(), datamodule=ReviewsDataModule(batch_size=64))
