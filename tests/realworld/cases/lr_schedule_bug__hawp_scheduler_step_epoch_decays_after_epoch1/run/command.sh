$ CUDA_VISIBLE_DEVICES=0, python scripts/test.py --config-file config-files/hawp.yaml
$ python scripts/eval_sap.py --path outputs/hawp/wireframe_test.json --threshold 10
