# TRAINING CODE (as posted)
model = GraphConvModel(n_tasks=1, mode='regression',
                       tensorboard=True, model_dir='models/',
                       dropout=0.5, graph_conv_layers=[64,64,64])

# TESTING CODE (as posted; the stored copy of the post is cut after the loader)
import deepchem as dc
from deepchem.models.tensorgraph.models.graph_models import GraphConvModel

graph_featurizer = dc.feat.graph_features.ConvMolFeaturizer()
loader = dc.data.data_loader.CSVLoader( tasks=['unique_pka'],
[...]
