loss.backward()
optimizer.step()
