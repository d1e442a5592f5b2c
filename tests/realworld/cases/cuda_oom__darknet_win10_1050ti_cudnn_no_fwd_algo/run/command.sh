.\darknet.exe detector train data/obj.data yolov3-myimg.cfg darknet53.conv.74
