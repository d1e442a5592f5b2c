cond = (df.saleYear<2011) | (df.saleMonth<10)
