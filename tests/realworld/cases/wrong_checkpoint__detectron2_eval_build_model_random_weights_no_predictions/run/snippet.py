    dataset_dicts = get_dicts("balloon/val")
    pre = DefaultPredictor(cfg)
    from detectron2.evaluation import COCOEvaluator, inference_on_dataset
    from detectron2.data import build_detection_test_loader
    evaluator = COCOEvaluator("balloon_val", cfg, False, output_dir="./output/")
    val_loader = build_detection_test_loader(cfg, "balloon_val")
    print(inference_on_dataset(build_model(cfg), val_loader, evaluator))
