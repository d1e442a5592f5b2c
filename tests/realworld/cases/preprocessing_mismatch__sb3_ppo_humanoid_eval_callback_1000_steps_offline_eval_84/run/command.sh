python compute_gait_metrics.py --model archives/v9b_sync2/best_model.zip
