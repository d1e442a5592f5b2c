python text.py --dataset [dataset] --decode_from [pretrained model path] --decode_input [a text file for reconstruction]
