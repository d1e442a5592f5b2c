python3 train.py --model_name ram --dataset restaurant --learning_rate 1e-3 --num_epoch 200
