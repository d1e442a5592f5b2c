    warmup_iterations = 1000
    scheduler = LambdaLR(
        optimizer,
        lr_lambda=lambda step: min((step + 1) / warmup_iterations, 1.0) * 0.5 * (
            1 + torch.cos(torch.tensor(torch.pi * step / args.max_epoch)))
    )


for step in tqdm(range(args.max_epoch)):
    for batch in dataloader:
        with torch.cuda.amp.autocast(dtype=dtype):
            ...
            # #calculate loss
            # semantic_loss = semantic_loss_fn(semantic_logits[0].permut
            # loss = loss + 0.01 * semantic_loss

            if step >= 0:
                lpips_val = lpips_loss_fn(rendered_image, target_image)
                loss += 0.05 * min(step / 1000, 1.0) * lpips_val.mean() # *

        loss.backward()
        optimizer.step()
        scheduler.step()
