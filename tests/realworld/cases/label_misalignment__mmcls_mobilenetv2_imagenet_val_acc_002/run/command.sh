python tools/test.py configs/imagenet/mobilenet_v2_b32x8.py checkpoint/mobilenet_v2_batch256_20200708-3b2dc3af.pth
bash ./tools/dist_test.sh  configs/imagenet/mobilenet_v2_b32x8.py checkpoint/mobilenet_v2_batch256_20200708-3b2dc3af.pth 1
