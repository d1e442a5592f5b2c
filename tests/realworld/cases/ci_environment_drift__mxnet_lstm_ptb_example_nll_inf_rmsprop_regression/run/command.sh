get_ptb_data.sh
python lstm_ptb.py
