./run.sh --stage 4 --ngp 1
