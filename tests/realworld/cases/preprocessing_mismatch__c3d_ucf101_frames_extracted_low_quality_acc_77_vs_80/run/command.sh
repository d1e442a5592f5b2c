# test_01.lst edited so that its paths point to the locally extracted frames
sh ucf101_testing.sh
