SHAPE_NAMES = ['square', 'disk', 'cross']


def make_shapes(n, seed, size=24, noise=0.2):
    """One object per image: class in SHAPE_NAMES and its box (x1, y1, x2, y2) scaled to [0, 1]."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    X = rng.normal(0, noise, (n, 1, size, size)).astype(np.float32)
    cls = rng.integers(0, 3, size=n)
    boxes = np.zeros((n, 4), dtype=np.float32)
    for i in range(n):
        s = rng.integers(7, 15)
        x1, y1 = rng.integers(0, size - s + 1), rng.integers(0, size - s + 1)
        gain = rng.uniform(0.7, 1.0)
        if cls[i] == 0:
            m = (xx >= x1) & (xx < x1 + s) & (yy >= y1) & (yy < y1 + s)
        elif cls[i] == 1:
            c, r = (x1 + (s - 1) / 2, y1 + (s - 1) / 2), s / 2
            m = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r
        else:
            t = max(2, s // 4)
            cx, cy = x1 + s // 2, y1 + s // 2
            m = (((xx >= x1) & (xx < x1 + s) & (abs(yy - cy) < t)) |
                 ((yy >= y1) & (yy < y1 + s) & (abs(xx - cx) < t)))
        X[i, 0][m] += gain
        boxes[i] = [x1 / size, y1 / size, (x1 + s) / size, (y1 + s) / size]
    return X, cls.astype(np.int64), boxes


def box_iou(a, b):
    ix1, iy1 = np.maximum(a[:, 0], b[:, 0]), np.maximum(a[:, 1], b[:, 1])
    ix2, iy2 = np.minimum(a[:, 2], b[:, 2]), np.minimum(a[:, 3], b[:, 3])
    inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
    area = lambda z: np.clip(z[:, 2] - z[:, 0], 0, None) * np.clip(z[:, 3] - z[:, 1], 0, None)
    return inter / (area(a) + area(b) - inter + 1e-9)


def det_map(scores, labels, boxes, gt_labels, gt_boxes, thrs=np.arange(0.5, 0.96, 0.05)):
    """COCO-style mAP for one object and one detection per image (101-point interpolation)."""
    pred = scores.argmax(1)
    conf = scores.max(1)
    iou = box_iou(boxes, gt_boxes)
    aps = []
    for t in thrs:
        per_cls = []
        for c in range(scores.shape[1]):
            sel = pred == c
            n_gt = int((gt_labels == c).sum())
            if n_gt == 0:
                continue
            order = np.argsort(-conf[sel])
            tp = ((gt_labels[sel] == c) & (iou[sel] >= t))[order].astype(np.float64)
            if len(tp) == 0:
                per_cls.append(0.0)
                continue
            ctp = np.cumsum(tp)
            rec = ctp / n_gt
            prec = ctp / np.arange(1, len(tp) + 1)
            prec = np.maximum.accumulate(prec[::-1])[::-1]
            pts = [prec[rec >= r].max() if (rec >= r).any() else 0.0 for r in np.linspace(0, 1, 101)]
            per_cls.append(float(np.mean(pts)))
        aps.append(np.mean(per_cls))
    return float(np.mean(aps)), float(aps[0]), float(aps[5])


class ToyDetector(nn.Module):
    def __init__(self, num_classes=3, width=16):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.ReLU())
        self.neck = nn.Sequential(nn.Flatten(), nn.Linear(2 * width * 36, 128), nn.ReLU())
        self.cls_score = nn.Linear(128, num_classes)
        self.bbox_pred = nn.Linear(128, 4)

    def forward(self, x):
        h = self.neck(self.backbone(x))
        return self.cls_score(h), self.bbox_pred(h)
