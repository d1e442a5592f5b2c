answer <- train$fine_labels
remove <- c("fine_labels")
trainning2 <- train[!(names(train) %in% remove)]
trainning_matrix <- as.matrix(trainning2)
dtrain <- xgb.DMatrix(data = trainning_matrix, label = answer)

nc <- length(unique(train$fine_labels))
nc <- as.numeric(as.character(nc))
xgb_params <- list("booster" = "gbtree", 
                   "eta" = 0.9944512, 
                   "max_depth" = 4, 
                   "subsample" = 0.8622684, 
                   "min_child_weight" = 0.7336961, 
                   "colsample_bytree" = 0.9545101, 
                   "gamma" = 8, 
                   "num_class" = nc - 1
model_xgb <- xgboost(data = dtrain, params = xgb_params, nrounds = 8, objective = "multi:softprob", eval_metric = "mlogloss")
pred <- predict(model_xgb, dtest)
