        model = AutoML(
            explain_level=0, verbose=1, random_state=1, results_path=self.automl_dir
        )
        model.fit(iris.data, iris.target)
        predictions = model.predict_proba(iris.data)
        params = json.load(open(os.path.join(self.automl_dir, "params.json")))
        leaderboard = pd.read_csv(os.path.join(self.automl_dir, "leaderboard.csv"))
        assert params['eval_metric'] == 'logloss'
        metric = Metric({"name": "logloss"})
        prediction_log_loss = metric(y_true=iris.target, y_predicted=predictions)
        training_log_loss = leaderboard[leaderboard['name'] == params['best_model']]['metric_value'].values[0]
        assert round(training_log_loss,3) == round(prediction_log_loss,3)
