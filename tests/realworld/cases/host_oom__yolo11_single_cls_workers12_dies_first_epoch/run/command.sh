yolo detect train data=data.yaml model=yolo11n.pt epochs=200 imgsz=640 patience=25 batch=-1 plots=true workers=12 single_cls=true
