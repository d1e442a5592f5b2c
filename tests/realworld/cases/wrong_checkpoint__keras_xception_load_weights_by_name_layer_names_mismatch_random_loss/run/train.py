from keras.applications import Xception
cnn_model = Xception(include_top=False, input_shape=(width, width, 3), weights=None)
cnn_model.load_weights('./xception_weights_tf_dim_ordering_tf_kernels_notop.h5')
