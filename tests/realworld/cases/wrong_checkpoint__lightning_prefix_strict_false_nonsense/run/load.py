model.load_state_dict(state_dict, strict=False)
