cd examples/seq2seq
CUDA_VISIBLE_DEVICES=0 PYTHONPATH=../../src USE_TF=0 ./run_translation.py \
--model_name_or_path t5-large \
--do_train --source_lang en --target_lang ro \
--source_prefix "translate English to Romanian: " \
--dataset_name wmt16 --dataset_config "ro-en" \
--output_dir /tmp/tst-translation \
--per_device_train_batch_size 4 \
--overwrite_output_dir \
--predict_with_generate \
--num_train_epochs 1 --fp16
