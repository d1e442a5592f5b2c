tf.train.string_input_producer(
	string_tensor,
	num_epochs = None,
	shuffle = True
    ...
)
