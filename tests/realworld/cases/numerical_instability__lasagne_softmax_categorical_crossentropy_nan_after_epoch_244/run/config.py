output_nonlinearity =  softmax,
objective_loss_function = categorical_crossentropy,
