class MyOwnDataset(Dataset):
    def __init__(self, root='./', transform=None, pre_transform=None):
        super(MyOwnDataset, self).__init__(root, transform, pre_transform)

    @property
    def raw_file_names(self):
        return ['some_file_1', 'some_file_2']

    @property
    def processed_file_names(self):
        return ['data.npz']

    def __len__(self):
        return len(self.processed_file_names)


    def _download(self):
        pass

    def _process(self):
        pass

    def get(self, idx=None):
        data = torch.load('data.npz')
        return data
