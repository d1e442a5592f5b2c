        for batch in loader:
            optimizer.zero_grad()
            batch = batch.to(dev)
            loss = loss_op(model(batch.x, batch.train_edge_index)[batch.train_mask], batch.y[batch.train_mask])
            loss.backward()
            optimizer.step()
