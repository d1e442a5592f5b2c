nn.init.constant_(self.pos_conv.bias, 0)
nn.init.constant_(self.reg_conv.bias, -math.log(0.99/0.01))
