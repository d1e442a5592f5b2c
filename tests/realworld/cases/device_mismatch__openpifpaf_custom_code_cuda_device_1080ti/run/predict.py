device = torch.device(type="cuda")
