output = self.model(input_ids=batch['input_ids'], labels=batch['labels'])
self.log('train_loss', output.loss, on_step=True, on_epoch=True, prog_bar=True, sync_dist=True)

optimizer = Adafactor(optimizer_grouped_parameters, scale_parameter=False, relative_step=False, warmup_init=False, lr=self.hparams.learning_rate)
scheduler = get_linear_schedule_with_warmup(
    optimizer,
    num_warmup_steps=num_warmup_steps,
    num_training_steps=self.total_steps,
)
