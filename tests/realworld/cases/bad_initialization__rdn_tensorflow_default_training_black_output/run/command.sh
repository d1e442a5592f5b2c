# Training with
python main.py

# testing with
python main.py --is_train=False --test_img='Test/Set5/butterfly_GT.bmp' --result_dir='Test/results'
