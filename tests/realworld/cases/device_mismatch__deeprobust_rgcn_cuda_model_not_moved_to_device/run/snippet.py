from deeprobust.graph.data import Dataset
from deeprobust.graph.defense import RGCN
data = Dataset(root='/tmp/', name='cora')
adj, features, labels = data.adj, data.features, data.labels
idx_train, idx_val, idx_test = data.idx_train, data.idx_val, data.idx_test
rgcn = RGCN(nnodes=adj.shape[0],nfeat=features.shape[1],
          nhid=16,
          nclass=labels.max().item() + 1,
          dropout=0.5, device='cuda')
rgcn.fit(features, adj, labels, idx_train) # train without earlystopping
rgcn.fit(features, adj, labels, idx_train, idx_val, patience=30) # train with earlystopping
rgcn.test(idx_test)
