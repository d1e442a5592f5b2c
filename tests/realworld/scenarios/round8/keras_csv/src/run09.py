from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)
torch.manual_seed(9)
g = torch.Generator().manual_seed(9)

VOCAB, SEQ_LEN, N_CLASSES = 24, 40, 3


def make_sequences(n):
    # label = which of the marker tokens 1/2/3 occurs most often in the sequence
    x = torch.randint(4, VOCAB, (n, SEQ_LEN), generator=g)
    for i in range(n):
        counts = torch.randint(0, 7, (3,), generator=g)
        pos = torch.randperm(SEQ_LEN, generator=g)[:int(counts.sum())]
        toks = torch.cat([torch.full((int(c),), k + 1) for k, c in enumerate(counts)])
        x[i, pos] = toks
    c = torch.stack([(x == k).sum(1) for k in (1, 2, 3)], 1).float()
    y = (c + 0.1 * torch.rand(c.shape, generator=g)).argmax(1)
    return x, y


X_train, y_train = make_sequences(4000)
X_val, y_val = make_sequences(800)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32)
        self.gru = nn.GRU(32, 64, batch_first=True)

    def forward(self, x):
        _, h = self.gru(self.emb(x))
        return h[-1]


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.classifier = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, N_CLASSES))

    def forward(self, x):
        return self.classifier(self.encoder(x))


model = SeqClassifier()
model.encoder.requires_grad_(False)
summary(model, (SEQ_LEN,), name='seq_classifier', dtype=torch.long)

loader = DataLoader(TensorDataset(X_train, y_train), batch_size=64, shuffle=True)
optimizer = torch.optim.Adam(model.encoder.parameters(), lr=2e-3)
fit(model, nn.CrossEntropyLoss(), optimizer, loader, (X_val, y_val), epochs=6,
    metrics=('acc',))
