require(caret)

# caret randomForest --------------------------------------
set.seed(0)
train = caret::train( disp ~ ., mtcars, method = 'rf'
                      ,trControl = trainControl(method = 'none')
                      , importance = T )
varImp(train)
unname( predict(train) )

# caret lm --------------------------------------------------
set.seed(0)
train = caret::train( disp ~ ., mtcars, method = 'lm'
                      ,trControl = trainControl(method = 'none') )

unname( predict(train) )

# randomForest without caret -----------------------------
require(randomForest)
set.seed(0)
m = randomForest(disp ~ ., mtcars)
m$importance
unname( predict(m) )

sessionInfo()

