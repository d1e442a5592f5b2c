def create_finetune_config():
    model = AutoBridge.from_hf_pretrained("hf_model_path").to_megatron_provider(
            load_weights=False
        )
    return ConfigContainer(
        model= model,
        ddp=DistributedDataParallelConfig(
            check_for_nan_in_grad=True,
            grad_reduce_in_fp32=True,
            overlap_grad_reduce=True,
            overlap_param_gather=True,
            bucket_size=100000000,
        ),
        train=TrainingConfig(
            micro_batch_size=1,
            global_batch_size=GLOBAL_BATCH_SIZE,
            train_iters=MAX_STEP,

        ),
        optimizer=OptimizerConfig(
            optimizer="dist_muon",
            lr=2.4e-5,
            min_lr=2.4e-6,
            muon_extra_scale_factor = 0.2,
            weight_decay = 0.1,
            adam_beta1 = 0.9,
            adam_beta2 = 0.95,
            clip_grad = 1.0,
            bf16 = True,
            fp8_recipe = None,
            adam_eps = 1e-8,
            use_distributed_optimizer = False,      # True, ...muon must be false
            overlap_param_gather = True,            # keep same with ddp
        ),
        scheduler=SchedulerConfig(
            start_weight_decay=0.1,
            end_weight_decay=0
# [... rest of the script not available in the stored copy]
