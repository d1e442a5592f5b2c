"""
Train PointNet classifier on our SynthShapes-8 export (adapted from Pointnet_Pointnet2_pytorch).
"""
import argparse
import datetime
import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)


def parse_args():
    parser = argparse.ArgumentParser('training')
    parser.add_argument('--batch_size', type=int, default=32, help='batch size in training')
    parser.add_argument('--model', default='pointnet_cls', help='model name')
    parser.add_argument('--num_category', default=8, type=int)
    parser.add_argument('--epoch', default=30, type=int, help='number of epoch in training')
    parser.add_argument('--learning_rate', default=0.001, type=float, help='learning rate in training')
    parser.add_argument('--num_point', type=int, default=192, help='Point Number')
    parser.add_argument('--optimizer', type=str, default='Adam', help='optimizer for training')
    parser.add_argument('--log_dir', type=str, default='pointnet_cls_synth8', help='experiment root')
    parser.add_argument('--decay_rate', type=float, default=1e-4, help='decay rate')
    parser.add_argument('--data_root', type=str, default='data/synthshapes8')
    parser.add_argument('--seed', type=int, default=1)
    return parser.parse_args()


def pc_normalize(pc):
    centroid = np.mean(pc, axis=0)
    pc = pc - centroid
    m = np.max(np.sqrt(np.sum(pc ** 2, axis=1)))
    return pc / m


class ShapesDataLoader(Dataset):
    def __init__(self, root, npoints, split='train'):
        d = np.load(os.path.join(root, f'{split}.npz'))
        self.points, self.labels = d['points'], d['labels']
        self.npoints = npoints
        self.split = split
        print('The size of %s data is %d' % (split, len(self.labels)))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        pts = self.points[index]
        if self.split == 'train':
            pts = pts[np.random.choice(len(pts), self.npoints, replace=False)]
        else:
            pts = pts[:self.npoints]
        return pc_normalize(pts).astype(np.float32), self.labels[index]


def random_scale_point_cloud(batch_data, scale_low=0.8, scale_high=1.25):
    scales = np.random.uniform(scale_low, scale_high, len(batch_data))
    return batch_data * scales[:, None, None]


def shift_point_cloud(batch_data, shift_range=0.1):
    shifts = np.random.uniform(-shift_range, shift_range, (len(batch_data), 3))
    return batch_data + shifts[:, None, :]


class get_model(nn.Module):
    def __init__(self, k=8):
        super().__init__()
        self.conv1 = nn.Conv1d(3, 32, 1)
        self.conv2 = nn.Conv1d(32, 64, 1)
        self.conv3 = nn.Conv1d(64, 256, 1)
        self.bn1 = nn.BatchNorm1d(32)
        self.bn2 = nn.BatchNorm1d(64)
        self.bn3 = nn.BatchNorm1d(256)
        self.fc1 = nn.Linear(256, 128)
        self.fc2 = nn.Linear(128, 64)
        self.fc3 = nn.Linear(64, k)
        self.dropout = nn.Dropout(p=0.4)
        self.bn4 = nn.BatchNorm1d(128)
        self.bn5 = nn.BatchNorm1d(64)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.bn3(self.conv3(x))
        x = torch.max(x, 2)[0]
        x = F.relu(self.bn4(self.fc1(x)))
        x = F.relu(self.bn5(self.dropout(self.fc2(x))))
        x = self.fc3(x)
        return F.log_softmax(x, dim=1)


def test(model, loader, num_class=8):
    mean_correct = []
    class_acc = np.zeros((num_class, 3))
    classifier = model.eval()
    with torch.no_grad():
        for points, target in loader:
            points = points.transpose(2, 1)
            pred = classifier(points)
            pred_choice = pred.data.max(1)[1]
            for cat in np.unique(target.cpu()):
                classacc = pred_choice[target == cat].eq(target[target == cat].long().data).cpu().sum()
                class_acc[cat, 0] += classacc.item() / float(points[target == cat].size()[0])
                class_acc[cat, 1] += 1
            correct = pred_choice.eq(target.long().data).cpu().sum()
            mean_correct.append(correct.item() / float(points.size()[0]))
    class_acc[:, 2] = class_acc[:, 0] / class_acc[:, 1]
    return np.mean(mean_correct), np.mean(class_acc[:, 2])


def main(args):
    def log_string(s):
        logger.info(s)
        print(s)

    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    exp_dir = os.path.join('log', 'classification', args.log_dir)
    os.makedirs(os.path.join(exp_dir, 'checkpoints'), exist_ok=True)
    os.makedirs(os.path.join(exp_dir, 'logs'), exist_ok=True)

    logger = logging.getLogger('Model')
    logger.setLevel(logging.INFO)
    fh = logging.FileHandler(os.path.join(exp_dir, 'logs', f'{args.model}.txt'), mode='w')
    fh.setFormatter(logging.Formatter('%(asctime)s - %(name)s - %(levelname)s - %(message)s'))
    logger.addHandler(fh)
    log_string('PARAMETER ...')
    log_string(args)

    log_string('Load dataset ...')
    train_dataset = ShapesDataLoader(args.data_root, args.num_point, split='train')
    test_dataset = ShapesDataLoader(args.data_root, args.num_point, split='test')
    trainDataLoader = DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True, num_workers=0, drop_last=True)
    testDataLoader = DataLoader(test_dataset, batch_size=args.batch_size, shuffle=False, num_workers=0)

    classifier = get_model(args.num_category)
    criterion = nn.NLLLoss()
    if args.optimizer == 'Adam':
        optimizer = torch.optim.Adam(classifier.parameters(), lr=args.learning_rate, betas=(0.9, 0.999),
                                     eps=1e-08, weight_decay=args.decay_rate)
    else:
        optimizer = torch.optim.SGD(classifier.parameters(), lr=0.01, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.7)

    best_instance_acc = 0.0
    best_class_acc = 0.0
    log_string('Start training...')
    for epoch in range(args.epoch):
        log_string('Epoch %d (%d/%s):' % (epoch + 1, epoch + 1, args.epoch))
        mean_correct = []
        losses = []
        classifier = classifier.train()
        t0 = time.time()
        for points, target in trainDataLoader:
            optimizer.zero_grad()
            points = points.numpy()
            points = random_scale_point_cloud(points)
            points = shift_point_cloud(points)
            points = torch.Tensor(points).transpose(2, 1)
            pred = classifier(points)
            loss = criterion(pred, target.long())
            pred_choice = pred.data.max(1)[1]
            correct = pred_choice.eq(target.long().data).cpu().sum()
            mean_correct.append(correct.item() / float(points.size()[0]))
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
        train_instance_acc = np.mean(mean_correct)
        log_string('Train Instance Accuracy: %f' % train_instance_acc)
        log_string('Train mean loss: %f, lr: %f, time: %.1fs' % (np.mean(losses), optimizer.param_groups[0]['lr'], time.time() - t0))

        instance_acc, class_acc = test(classifier, testDataLoader, num_class=args.num_category)
        if instance_acc >= best_instance_acc:
            best_instance_acc = instance_acc
            best_epoch = epoch + 1
        if class_acc >= best_class_acc:
            best_class_acc = class_acc
        log_string('Test Instance Accuracy: %f, Class Accuracy: %f' % (instance_acc, class_acc))
        log_string('Best Instance Accuracy: %f, Class Accuracy: %f' % (best_instance_acc, best_class_acc))
        if instance_acc >= best_instance_acc:
            savepath = os.path.join(exp_dir, 'checkpoints', 'best_model.pth')
            log_string('Saving at %s' % savepath)
            torch.save({'epoch': best_epoch, 'instance_acc': instance_acc, 'class_acc': class_acc,
                        'model_state_dict': classifier.state_dict()}, savepath)
    log_string('End of training...')


if __name__ == '__main__':
    args = parse_args()
    main(args)
