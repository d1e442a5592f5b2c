       self.hids = []
        for li in xrange(options['n_layers']):
            self.hids.append([
                nn.Linear(options['n_hid'], options['n_hid']),
                eval('nn.{}'.format(options['act']))()
                ])
            indim = options['n_hid']

        self.classifier = nn.Linear(options['n_hid'], 3)
