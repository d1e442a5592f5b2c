python main_rgb_fused.py recognition -c config/ntu60_xsub/test_rgb_fused.yaml
