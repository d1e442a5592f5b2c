model = LitModel()
model.load_from_checkpoint(checkpoint_path=<path to ckpt>)    
