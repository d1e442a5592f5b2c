python3 3D-RetinaNet/main.py \
        $DATA_DIR \
        $OUTPUT_DIR \
        $PT_DIR \
        --MODE=train \
        --ARCH=resnet50 \
        --MODEL_TYPE=I3D \
        --DATASET=road \
        --TRAIN_SUBSETS=train_1 \
        --VAL_SUBSETS=val_1 \
        --SEQ_LEN=8 \
        --TEST_SEQ_LEN=4 \
        --BATCH_SIZE=$BATCH_SIZE \
        --LR=0.00245 \
        --MILESTONES=6,8 \
        --MAX_EPOCHS=10
