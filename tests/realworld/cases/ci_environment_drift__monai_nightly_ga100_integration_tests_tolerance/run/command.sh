BUILD_MONAI=1 ./runtests.sh --coverage
