python interactive.py  --path $MODEL_DIR/model.pt $MODEL_DIR  --beam 5 --source-lang fr --target-lang en
