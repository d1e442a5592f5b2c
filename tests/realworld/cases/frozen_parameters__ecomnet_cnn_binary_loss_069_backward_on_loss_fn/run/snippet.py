cost = loss(output1, targets)  ##计算BCE损失
model.zero_grad()
  
loss.backward() #计算梯度回传
optimizer.step()
