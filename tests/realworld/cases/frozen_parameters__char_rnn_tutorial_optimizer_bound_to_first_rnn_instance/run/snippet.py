# original update in the tutorial (as posted)
  for p in rnn.parameters():
    p.data.add_(-learning_rate, p.grad.data)

# the user's version (as posted)
optimizer = optim.SGD(rnn.parameters(), lr=0.005)
def train(category_tensor, line_tensor):

  hidden = rnn.initHidden()
  optimizer.zero_grad()
  for i in range(line_tensor.size()[0]):
    output, hidden = rnn(line_tensor[i], hidden)  
  loss.backward()
  optimizer.step()
return output, loss.data[0]
