print('Build main model...')
model = Sequential()
model.add(Merge([left, right], mode='sum'))
#model.add(LSTM(128))
#model.add(Dropout(0.2))
model.add(Dense(14, activation='softmax'))

model.compile(loss='binary_crossentropy',
              optimizer='adam',
              metrics=['accuracy'])
