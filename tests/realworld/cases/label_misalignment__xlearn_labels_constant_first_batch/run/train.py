            inputs = [data[j][0] for j in range(10)]
            labels = data[0][1]
