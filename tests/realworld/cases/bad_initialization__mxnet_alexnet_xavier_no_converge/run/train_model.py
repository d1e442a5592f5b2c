initializer =  mx.init.Xavier(factor_type="in", magnitude=2.34)
