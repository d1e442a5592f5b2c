# For NCCL, we use
  python /tensorflow_benchmarks/scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py \
  --data_format=NCHW --batch_size=64 --model=resnet50_v2 --optimizer=momentum \
  --variable_update=replicated --nodistortions --allow_growth=True --all_reduce_spec=nccl\
  --print_training_accuracy=True --num_epochs=1 --weight_decay=1e-4 \
  --num_gpus=4 \
  --data_dir=/datasets/imagenet/ --display_every=100  --train_dir=/xyz/train/nccl/res_4_5_16

# For Horovod,
  mpirun --allow-run-as-root -np 4 -H host1:1,host2:1,host3:1,host4:1 \
  -x NCCL_DEBUG=INFO -x NCCL_SOCKET_IFNAME=bond0  -bind-to none -map-by slot -mca pml ob1 -mca btl ^openib  \
  -mca btl_tcp_if_include bond0  -mca plm_rsh_args
# [rest of the command was cut in the stored copy]
