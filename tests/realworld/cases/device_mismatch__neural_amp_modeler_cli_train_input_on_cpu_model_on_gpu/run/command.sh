python bin/train/main.py bin/train/inputs/data/single_pair.json bin/train/inputs/models/demonet.json bin/train/inputs/learning/demo.json bin/train/outputs/MyAmp
