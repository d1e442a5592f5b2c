./gen_model.sh 2
./train.sh
