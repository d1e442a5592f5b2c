    def convert_to_sgd(self, model, lr, weight_decay, decay_type, decay_rate):
        self.decay_type = decay_type
        self.decay_rate = decay_rate

        weight_decay = self.optimizer.weight_decay
        self.optimizer = set_optimizer(model, 'sgd', lr, weight_decay)
        logger.info('========== Convert to SGD ==========')
