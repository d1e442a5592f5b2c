self.ce_loss = nn.CrossEntropyLoss()  # Class loss
pred_cls = torch.sigmoid(prediction[..., 5:])  # Cls pred.
loss_cls = (1 / nB) * self.ce_loss(pred_cls[mask], torch.argmax(tcls[mask], 1))
