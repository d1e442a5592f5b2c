python demo.py --dataset Berlin --flag_test train --patches 5
