# predict.R -- score a new month of measurements
library(keras)
library(readr)

feature_cols <- sprintf("m%02d", 1:12)
model <- load_model_tf("models/grade_clf")

score_file <- function(path) {
  new_df <- read_csv(path, show_col_types = FALSE)
  x_new <- as.matrix(new_df[, feature_cols])
  probs <- model %>% predict(x_new, batch_size = 256)
  new_df$pred_grade <- max.col(probs) - 1L
  new_df
}

scored <- score_file("data/measurements_2024_05.csv")
write_csv(scored, "out/scored_2024_05.csv")
