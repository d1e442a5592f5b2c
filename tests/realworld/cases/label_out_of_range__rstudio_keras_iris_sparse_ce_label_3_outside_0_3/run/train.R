    library(datasets)
    library(keras)
    
    iris <- iris[sample(nrow(
[...]
