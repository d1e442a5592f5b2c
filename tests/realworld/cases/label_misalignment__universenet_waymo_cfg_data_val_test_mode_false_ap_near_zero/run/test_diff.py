dataset = build_dataset(cfg.data.val)
