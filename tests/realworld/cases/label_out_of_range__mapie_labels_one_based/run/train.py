from sklearn.datasets import make_classification
from mapie.classification import MapieClassifier

random_state = 20

X, y = make_classification(
    n_samples=20000,
    n_classes=4,
    n_informative=6,
    random_state=random_state
)
y += 1

mapie = MapieClassifier()
mapie.fit(X, y)
