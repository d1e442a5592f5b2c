import chainer
from chainer.iterators import SerialIterator
from chainercv.datasets import VOCBboxDataset
from chainercv.datasets import voc_bbox_label_names
from chainercv.extensions import DetectionVOCEvaluator
from chainercv.links import FasterRCNNVGG16

dataset = VOCBboxDataset(year='2007', split='test')
it = SerialIterator(dataset, batch_size=2, repeat=False, shuffle=False)

model = FasterRCNNVGG16(n_fg_class=len(voc_bbox_label_names),pretrained_model="voc07")

chainer.cuda.get_device_from_id(1).use()
model.to_gpu()

evaluator = DetectionVOCEvaluator(it, model,label_names=voc_bbox_label_names)
# result is a dictionary of evaluation scores. Print it and check it.
result = evaluator()
print(result['main/map'])
