python example/cora.py
