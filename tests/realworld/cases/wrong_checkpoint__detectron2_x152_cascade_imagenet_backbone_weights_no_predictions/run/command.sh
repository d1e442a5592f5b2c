python3 t1.py
