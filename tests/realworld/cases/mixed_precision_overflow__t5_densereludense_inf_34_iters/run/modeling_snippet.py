h = self.wo(h)
