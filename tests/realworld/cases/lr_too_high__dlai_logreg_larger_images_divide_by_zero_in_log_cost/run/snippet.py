cost = (-1/m) * (np.dot(Y, np.log(A.T)) + np.dot((1-Y), np.log(1-A.T)))
