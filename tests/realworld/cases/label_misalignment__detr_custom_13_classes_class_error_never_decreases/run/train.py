-----------------------------------------------
path = 'detr/datasets/korea.py'

    def build(image_set, args):
        root = Path(args.data_path)
        assert root.exists(), f'provided Korea path {root} does not exist'
        mode = 'instances'
        PATHS = {
            "train": (root / "train/", root / f'train.json'),
            "val": (root / "val/", root / f'val.json'),
        }
        img_folder, ann_file = PATHS[image_set]
        dataset = KoreaDetection(img_folder, ann_file, transforms=make_Korea_transforms(image_set), return_masks=args.masks)
        return dataset

-----------------------------------------------
[...]
