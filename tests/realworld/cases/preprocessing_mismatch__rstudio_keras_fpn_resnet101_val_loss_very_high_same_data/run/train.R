train_generator <- custom_generator(data = train_input,
                                    shuffle = TRUE,
                                    intensity_operation = FALSE,
                                    batch_size = BATCH_SIZE)

val_generator <- custom_generator(data = val_input,
                                  shuffle = FALSE,
                                  intensity_operation = FALSE,
                                  batch_size = BATCH_SIZE)

history <- model %>% 
  fit_generator(
    generator = train_generator,
    epochs = EPOCHS,
    steps_per_epoch = STEPS_PER_EPOCHS,
    validation_data = val_generator,
    validation_steps = VALIDATION_STEPS,
    verbose = 1L
  )
