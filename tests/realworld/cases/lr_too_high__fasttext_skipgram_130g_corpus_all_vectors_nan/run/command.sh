./fastText-0.1.0/fasttext skipgram -input train -output fasttext -minCount 17 -wordNgrams 1 -minn 2 -maxn 4 -t 0.00001 -lr 0.1 -dim 200 -ws 3 -epoch 30 -loss hs -thread 8 -bucket 5000000
