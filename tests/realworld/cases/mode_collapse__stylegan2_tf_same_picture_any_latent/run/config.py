im_size = 256
latent_size = 512
BATCH_SIZE = 4
cha = 24
