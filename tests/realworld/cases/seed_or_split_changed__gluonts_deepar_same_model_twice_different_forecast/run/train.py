estimator = DeepAREstimator(freq = '5min',
                           context_length = 4*24*12, 
                           prediction_length = 2*24*12,
                           num_layers = 2,
                           num_cells = 128,
                           scaling = True,
                           trainer = Trainer(epochs= 50, learning_rate = 0.001,hybridize=True)
                           lags_seq = get_lags_for_frequency("5min", lag_ub=14*24*12)) 

from gluonts.dataset.common import ListDataset


training_data = ListDataset([{"start": df_input.index[0],
                              "target": df_input.Load[:'2022-03-07 04:50:00'],
                              #'feat_dynamic_real': [df_input.Rolling[:'2022-03-07 04:50:00']],
                              'feat_dynamic_cat': [df_input.DofW[:'2022-03-07 04:50:00']],
                              'time_feat': [time_feat_df.DayofWeek[:'2022-03-07 04:50:00'],
                                            time_feat_df.Hour[:'2022-03-07 04:50:00'],] }],
                           freq = "5min")
# [...]
