>data <- mx.symbol.Variable("data")
>fc1 <- mx.symbol.FullyConnected(data, name="fc1", num_hidden=300)
>act1 <- mx.symbol.Activation(fc1, name="sigm1", act_type="sigmoid")
>fc2 <- mx.symbol.FullyConnected(act1, name="fc2", num_hidden=300)
>act2 <- mx.symbol.Activation(fc2, name="sigm2", act_type="sigmoid")
>fc3 <- mx.symbol.FullyConnected(act2, name="fc3", num_hidden=300)
>act3 <- mx.symbol.Activation(fc3, name="sigm3", act_type="sigmoid")
>fc4 <- mx.symbol.FullyConnected(act3, name="fc4", num_hidden=1)
>linear_reg_output <- mx.symbol.LinearRegressionOutput(f[...]
