self.rnn = haste.IndRNN(input_dim, hidden_dim, batch_first=True, zoneout=0.1, return_state_sequence=True)
self.rnn2 = haste.IndRNN(hidden_dim, 64, batch_first=True, zoneout=0.075)
self.d1 = nn.Dropout(0.15)

# And forward function:
out, (hn) = self.rnn(x)
out, (hn) = self.rnn2(self.d1(out))
