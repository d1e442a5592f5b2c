   optimizer = Prodigy(params_to_optimize)

    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
      optimizer=optimizer, 
      T_max=num_train_epochs,
      eta_min=1e-4
      )
