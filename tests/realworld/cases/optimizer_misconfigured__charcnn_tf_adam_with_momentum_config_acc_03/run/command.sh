python training.py
