./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2
