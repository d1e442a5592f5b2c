python tools/Train_HICO_DET_DJR.py --model <your model name> --num_iteration 400000
