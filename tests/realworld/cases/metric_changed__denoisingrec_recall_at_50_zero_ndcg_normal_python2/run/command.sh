python inference.py --dataset=yelp --model=GMF --drop_rate=0.1 --num_gradual=30000 --gpu=0
