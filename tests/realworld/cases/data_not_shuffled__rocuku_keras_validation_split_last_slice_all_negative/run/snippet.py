model.fit(X_train, y_train, epochs=2, verbose=1, validation_split=0.9, shuffle=True)
