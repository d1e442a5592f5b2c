class BoringModel(LightningModule):
    ...
    def training_step(self, batch, batch_idx):
        print(f'Epoch {self.trainer.current_epoch} / Step {self.trainer.global_step}: lr {self.trainer.optimizers[0].param_groups[0]["lr"]}')
        ...
    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.layer.parameters(), lr=100)
        lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[4], gamma=.1)
        return [optimizer], [lr_scheduler]

def test_x(resume_from_checkpoint=None):
    model = BoringModel()
    trainer = pl.Trainer(
        callbacks=[pl.callbacks.ModelCheckpoint(save_top_k=-1)],
        resume_from_checkpoint=resume_from_checkpoint
    )
    trainer.fit(model, train)

test_x()
test_x('.../checkpoints/epoch=2.ckpt')
