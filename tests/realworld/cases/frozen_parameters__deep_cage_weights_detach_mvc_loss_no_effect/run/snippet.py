weights = weights.detach()
self.loss["WREG"]+=self.mvc_reg_loss(all_outputs["weight"])*self.opt.mvc_weight
