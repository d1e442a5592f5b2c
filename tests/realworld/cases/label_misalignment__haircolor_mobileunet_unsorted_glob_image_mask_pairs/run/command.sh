python data.py --img_size=224
python train_top_model.py --img_file=data/images.npy --mask_file=data/masks.npy --mobilenet_weights_path=mobilenet[...]
