output = self.final_layer(logits)
