# works:
python train.py task=segmentation model_type=kpconv model_name=KPConvPaper dataset=s3disfused training=s3dis_benchmark/kpconv.yaml
# fails:
python train.py task=segmentation model_type=pointnet2 model_name=pointnet2_charlesssg dataset=s3disfused training=s3dis_benchmark/pointnet2.yaml
