%cd /content/nerf_pl
import os
os.environ['ROOT_DIR'] = "/content/drive/My Drive/mic"
os.environ['EXP'] = "mic"
!python train.py \
   --dataset_name blender \
   --root_dir "$ROOT_DIR" \
   --N_importance 64 --img_wh 200 200 --noise_std 0 \
   --num_epochs 20 --batch_size 1024 \
   --optimizer adam --lr 5e-4 --lr_scheduler cosine \
   --exp_name exp \
