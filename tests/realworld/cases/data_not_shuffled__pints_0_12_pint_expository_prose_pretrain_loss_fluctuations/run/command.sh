fabric run \
--accelerator=cuda \
--devices=8 \
pretrain/main.py \
--data_dir data/ \
--gpus 8 \
--global_batch_size 2048 \
--learning_rate 4e-4 \
--micro_batch_size 64 \
--max_step 24060 \
--warmup_steps 2000 \
--weight_decay 0.1 \
--beta1 0.9 \
--beta2 0.95 \
--grad_clip 1.0 \
--min_lr 4e-5 \
--model_name 0.12-Pint \
--wandb_name seed-42-2048 \
--wandb_project 0.12-pint \
--tokenizer_dir tokenizer/pints
