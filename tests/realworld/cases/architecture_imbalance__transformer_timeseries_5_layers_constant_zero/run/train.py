model = TransAm(num_layers=5).to(device)
