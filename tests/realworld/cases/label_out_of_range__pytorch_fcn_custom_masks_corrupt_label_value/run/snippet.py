lbl[lbl == 255] = -1
