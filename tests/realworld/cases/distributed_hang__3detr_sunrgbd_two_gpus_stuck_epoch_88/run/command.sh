sh scripts/sunrgbd_quick.sh
