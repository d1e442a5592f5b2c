if self.iter != 0:
    stuff = self.modelA(input)
    stuff2 = self.modelB(stuff)
    return stuff2
else:
    stuff = self.modelA(input)
    return stuff
