optimizer = Optimizer(optimizer, lr_scheduler, config.train.warmup_steps, config.train.max_grad_norm)

if self.scheduler_period == self.count:
    self.scheduler = None
    self.scheduler_period = 0
    self.count = 0
