x = nn.Dropout(p=0.5)(x)
