v.load_state_dict(ckpt[k], strict=False)
