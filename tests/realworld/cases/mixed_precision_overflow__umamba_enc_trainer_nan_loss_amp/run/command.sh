nnUNetv2_train 704 2d all -tr nnUNetTrainerUMambaEnc
