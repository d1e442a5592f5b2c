assert torch.all(tokenized.input_ids[:, 1:] == labels), "tokenizer_mismatch"
