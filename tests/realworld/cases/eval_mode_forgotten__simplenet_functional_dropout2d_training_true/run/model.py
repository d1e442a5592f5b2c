def forward(self, x):
        #print(x.size())
        out = self.features(x)

        #Global Max Pooling
        out = F.max_pool2d(out, kernel_size=out.size()[2:]) 
        out = F.dropout2d(out, 0.1, training=True)

        out = out.view(out.size(0), -1)
        out = self.classifier(out)
        return out
