class Net(nn.Module):
    
    def __init__(self, input_size, hidden_size, num_layers, output_dim):
        super(Net, self).__init__()
        
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        
        # Model
        self.model = nn.LSTM(input_size=input_size, hidden_size=hidden_size, 
                             num_layers=num_layers, batch_first=True, 
                             dropout=0)
        
        # FC layer(s)
        self.fc = nn.Linear(hidden_size, output_dim)
    
    def forward(self, x):
        
        # Initialization hidden state and cell state
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).requires_grad_()
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).requires_grad_()
        
        out, (hn, cn) = self.model(x, (h0.to(DEVICE), c0.to(DEVICE)))
        
        out = F.dropout(self.fc(out[:, -1, :]), p=0.7)
        
        return out

# Callbacks
train_acc = EpochScoring(scoring='accuracy', on_train=True, 
                         name='train_acc', lower_is_better=False)
callbacks = [train_acc]

net = NeuralNetClassifier(
    # Features, hidden features, layers
[...]
