local input, target = valid_data:next_batch(offset)
      local out = self.mlp:forward(input)
      local **err** = self.criterion:forward(out, target) * target:size(1)
