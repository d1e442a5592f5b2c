python src/train.py --checkpoint F:/work/CharsiuPre/byt5-small --language jpn --evaluate --model byt5 --test_data data/test/jpn.tsv --output_dir F:/work/CharsiuResult/test
