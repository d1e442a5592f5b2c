token_embedding = Embedding.from_params(
		vocab=vocab,
		params=Params({'pretrained_file':glove_embeddings_file,
					   'embedding_dim' : EMBEDDING_DIM,
					   'projection_dim': PROJECT_DIM,
					   'trainable': False}))
