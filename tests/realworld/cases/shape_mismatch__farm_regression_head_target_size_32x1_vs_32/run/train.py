prediction_head = RegressionHead([768, 1])
