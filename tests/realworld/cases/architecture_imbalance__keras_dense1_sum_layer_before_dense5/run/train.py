model = Sequential()
model.add(Input(shape=(10,))
model.add(Dense(1,activation='relu'))
model.add(Dense(5,activation='relu'))

class sumLayer(Layer):
def __init__(self,**kwargs):
super(DefuzzyLayer, self).__init__(**kwargs)
def call(self, x_inputs):
xc = K.sum((x_inputs), axis=-1, keepdims=False)
return tf.reshape(xc,(tf.shape(x_inputs)[0],1))
