class net( nn.Module):
    def __init__( self, num_layers):
        super( net, self).__init__()

        self.layer = nn.Linear( 1, 1)
        self.list_of_layers = [nn.Linear( 1, 1) for i in range( num_layers)]

n = net( 4)
print n
