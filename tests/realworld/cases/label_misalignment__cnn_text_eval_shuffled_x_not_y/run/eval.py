                shuffle_indices = np.random.permutation(np.arange(data_size))
                shuffled_data = data[shuffle_indices]

correct_predictions = float(sum(all_predictions == y_test))
