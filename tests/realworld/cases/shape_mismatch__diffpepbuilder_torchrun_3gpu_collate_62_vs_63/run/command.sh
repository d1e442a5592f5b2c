torchrun --nproc-per-node=3 experiments/run_inference.py data.val_csv_path=data/receptor_data/metadata_test.csv
