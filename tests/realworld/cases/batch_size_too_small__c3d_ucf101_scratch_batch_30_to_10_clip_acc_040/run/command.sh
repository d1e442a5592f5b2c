sh test_ucf101.sh
