for x, y in generator.flow(x_train, y_train, batch_size=30720):
    fit = model.fit(x, y[:, 0],
                    batch_size=3072,
                    epochs=10,
                    verbose=1,
                    validation_split=.3,
                    shuffle=True,
                    callbacks=[checkpoint]
                    )
