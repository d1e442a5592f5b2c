python3 -m jssp.train --n_j 2 --n_m 2 --n_steps_episode 4 --batch_size 3 --n_workers 1 --n_epochs 1 --skip_initial_eval
