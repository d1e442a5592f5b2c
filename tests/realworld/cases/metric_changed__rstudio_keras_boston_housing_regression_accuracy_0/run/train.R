library(keras)

cat('Loading data...\n')
bh <- dataset_boston_housing(path = "boston_housing.npz", seed = 113L,test_split = 0.2)
x_train <- bh$train$x
y_train <- bh$train$y
x_test <- bh$test$x
y_test <- bh$test$y

cat(length(x_train), 'train sequences\n')
cat(length(x_test), 'test sequences\n')

model <- keras_model_sequential()

model %>%
  layer_dense(units = 13, input_shape = 13) %>% 
  layer_activation(activation = 'relu') %>%
  layer_dense(units = 1)

# compile model
model %>% compile(
  loss = loss_mean_squared_error,
  optimizer = optimizer_adam(),
  metrics = c('accuracy')
)

# train and evaluate
model %>% fit(
  x_train, 
  y_train,
  batch_size = 5,
  epochs = 100,
  verbose = 1,
  validation_data = list(x_test, y_test)
)
scores <- model %>% evaluate(
  x_test, y_test, verbose = 0
)

cat('Test loss:', scores[[1]], '\n')
cat('Test accuracy:', scores[[2]], '\n')
