base_model = InceptionV3(weights="imagenet", input_shape = (224,224,3), include_top = False)
#set_untrainable(base_model)

x = base_model.output
x = GlobalAveragePooling2D()(x)
x = Dropout(0.5)(x)

x = Dense(2, activation="softmax")(x)

model = Model(inputs = base_model.input, outputs = x) 
