import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(L.LightningModule):
    def __init__(self, vocab_size=32000, d=256, max_len=512, num_classes=3):
        super().__init__()
        self.save_hyperparameters()
        self.tok = nn.Embedding(vocab_size, d)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 4)
        self.head = nn.Linear(d, num_classes)

    def forward(self, ids, pos):
        h = self.encoder(self.tok(ids) + self.pos(pos))
        return self.head(h.mean(1))

    def training_step(self, batch, _):
        ids, y = batch
        pos = torch.arange(ids.shape[1], device=ids.device).expand_as(ids)
        loss = F.cross_entropy(self(ids, pos), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, _):
        ids, y = batch
        pos = torch.arange(ids.shape[1]).expand_as(ids)
        self.log("val_loss", F.cross_entropy(self(ids, pos), y), prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-4)
