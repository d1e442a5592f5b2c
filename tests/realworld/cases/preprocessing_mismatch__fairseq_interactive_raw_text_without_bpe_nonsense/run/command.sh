python interactive.py data-bin/iwslt14.tokenized.de-en   --path checkpoints/fconv/checkpoint_best.pt  --beam 5 --source de --target en
