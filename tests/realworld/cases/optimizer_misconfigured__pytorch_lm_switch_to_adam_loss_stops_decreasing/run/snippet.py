# before
torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clip)
for p in model.parameters():
    p.data.add_(-learning_rate, p.grad.data)
total_loss += loss.item()

# after
torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clip)
optimizer.step()
total_loss += loss.item()

optimizer = optim.Adam(model.parameters(), lr=learning_rate, weight_decay=1e-2)
