import numpy as np

from keras.models import Sequential
from keras.layers.core import Dense, Dropout, Activation
from keras.optimizers import SGD

from sklearn.datasets import load_iris
from sklearn.cross_validation import train_test_split
from sklearn.preprocessing import OneHotEncoder

iris = load_iris()

X, y = iris.data, iris.target
enc = OneHotEncoder()
y= enc.fit_transform(y[:, np.newaxis]).toarray()

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.20, random_state=42)

print X.shape, y.shape # Outputs ((150L, 4L), (150L, 3L))


# Implement Model in Keras
model = Sequential()
model.add(Dense(X.shape[1], 10, init='uniform', activation='tanh'))
model.add(Dropout(0.5))
model.add(Dense(10, 10, init='uniform', activation='tanh'))
model.add(Dropout(0.5))
model.add(Dense(10, y.shape[1], init='uniform', activation='softmax'))

sgd = SGD(lr=0.1, decay=1e-6, momentum=0.9, nesterov=True)
# Compile the model using theano
model.compile(loss='categorical_crossentropy', optimizer=sgd)

from sklearn import cross_validation
print model.to_yaml()
