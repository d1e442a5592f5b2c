model = xDeepFM(linear_feature_columns,dnn_feature_columns, dnn_use_bn=True, task='binary')
