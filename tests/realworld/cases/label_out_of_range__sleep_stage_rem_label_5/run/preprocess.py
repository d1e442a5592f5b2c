fold_label.append(np.eye(5)[label])
