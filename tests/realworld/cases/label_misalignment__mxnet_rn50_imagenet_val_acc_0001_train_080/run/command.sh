./RN50_FP16_8GPU.sh /workspace/examples/resnet50v1.5 --data-root /datasets/imagenet_raw
