python main.py --root_path /path/to/your/data --dataset dataset_name --seed 1
