G:\caffe-windows\Build\x64\Release>classification model1/deploy.prototxt model1/caffe_alexnet_train_iter_300000.caffemodel model1/mean_lmdb model1/label.txt model1/img1.jpg
