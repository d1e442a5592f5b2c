bash launch_7b_3gpu.sh  # GPUs 2,3,4 on ags1
