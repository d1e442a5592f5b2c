# train.py (excerpt: epoch loop and checkpointing)
    best = 0.0
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()

        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = crit(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        log_row(epoch, train_loss, train_acc, val_loss, val_acc)
        if val_acc > best:
            best = val_acc
            torch.save({"state_dict": model.state_dict(), "epoch": epoch, "val_acc": val_acc,
                        "model_args": dict(d_in=Xtr.shape[1], n_cls=n_cls)},
                       f"runs/{cfg.run}/best.pt")
