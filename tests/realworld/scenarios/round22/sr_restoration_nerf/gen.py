#!/usr/bin/env python
"""Generate the run folders under ./runs by really training small models on CPU.

Each run is produced by a training script executed with sys.executable inside its
run folder.  Runs that ship a train.py keep the script; for the others the script is
removed after it ran (the user only handed over the logs/configs).
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")

# --------------------------------------------------------------------------------------
# snippets shared by the scripts (pasted into each script so every script stands alone)
# --------------------------------------------------------------------------------------
SYN = r'''
def synth_image(rng, h, w):
    """procedural test card: colour ramps, soft blobs, hard-edged boxes, fine stripes"""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    img = np.zeros((3, h, w), np.float32)
    c0, c1 = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
    t = (xx * np.cos(rng.uniform(0, 6.28)) + yy * np.sin(rng.uniform(0, 6.28))) / max(h, w)
    img += c0[:, None, None] * (1 - t) * 0.6 + c1[:, None, None] * t * 0.6
    for _ in range(rng.integers(3, 7)):
        cx, cy, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(2, w / 4)
        img += rng.uniform(-0.5, 0.5, 3)[:, None, None] * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
    for _ in range(rng.integers(2, 5)):
        x0, y0 = rng.integers(0, w - 4), rng.integers(0, h - 4)
        bw, bh = rng.integers(3, w // 2), rng.integers(3, h // 2)
        img[:, y0:y0 + bh, x0:x0 + bw] = rng.uniform(0, 1, 3)[:, None, None]
    f = rng.uniform(0.3, 1.2); ang = rng.uniform(0, 3.14)
    img += 0.08 * np.sin(f * (xx * np.cos(ang) + yy * np.sin(ang)))[None]
    return np.clip(img, 0, 1)
'''

METRICS = r'''
def tensor2img(t):
    return (t.detach().clamp(0, 1) * 255.0).round().double()

def calculate_psnr(img, img2, crop_border=0):
    if crop_border:
        img, img2 = img[..., crop_border:-crop_border, crop_border:-crop_border], img2[..., crop_border:-crop_border, crop_border:-crop_border]
    mse = torch.mean((img - img2) ** 2).item()
    if mse == 0:
        return float('inf')
    return 10. * math.log10(255. * 255. / mse)

_g = torch.exp(-(torch.arange(11, dtype=torch.float64) - 5) ** 2 / (2 * 1.5 ** 2)); _g = _g / _g.sum()
_WIN = (_g[:, None] * _g[None, :])[None, None]

def calculate_ssim(img, img2, crop_border=0):
    if crop_border:
        img, img2 = img[..., crop_border:-crop_border, crop_border:-crop_border], img2[..., crop_border:-crop_border, crop_border:-crop_border]
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    x = img.reshape(-1, 1, *img.shape[-2:]); y = img2.reshape(-1, 1, *img2.shape[-2:])
    mu1, mu2 = F.conv2d(x, _WIN), F.conv2d(y, _WIN)
    s1 = F.conv2d(x * x, _WIN) - mu1 ** 2; s2 = F.conv2d(y * y, _WIN) - mu2 ** 2; s12 = F.conv2d(x * y, _WIN) - mu1 * mu2
    m = ((2 * mu1 * mu2 + c1) * (2 * s12 + c2)) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))
    return m.mean().item()
'''

BASICSR_BANNER = r'''
                ____                _       _____  ____
               / __ ) ____ _ _____ (_)_____/ ___/ / __ \
              / __  |/ __ `// ___// // ___/\__ \ / /_/ /
             / /_/ // /_/ /(__  )/ // /__ ___/ // _, _/
            /_____/ \__,_//____//_/ \___//____//_/ |_|
     ______                   __   __                 __      __
    / ____/____   ____   ____/ /  / /   __  __ _____ / /__   / /
   / / __ / __ \ / __ \ / __  /  / /   / / / // ___// //_/  / /
  / /_/ // /_/ // /_/ // /_/ /  / /___/ /_/ // /__ / /<    /_/
  \____/ \____/ \____/ \____/  /_____/\____/ \___//_/|_|  (_)
    
Version Information: 
\tBasicSR: 1.4.2
\tPyTorch: 2.1.2+cu121
\tTorchVision: 0.16.2+cu121'''.replace('\\t', '\t')

# Helper code used only by the hidden (framework-emulating) scripts: a BasicSR-style logger
BASICSR_LOG = r'''
import logging, datetime, yaml
BANNER = %r

def get_root_logger(log_file):
    logger = logging.getLogger('basicsr')
    logger.setLevel(logging.INFO)
    fmt = logging.Formatter('%%(asctime)s %%(levelname)s: %%(message)s')
    fh = logging.FileHandler(log_file, 'w'); fh.setFormatter(fmt); logger.addHandler(fh)
    sh = logging.StreamHandler(sys.stdout); sh.setFormatter(fmt); logger.addHandler(sh)
    return logger

def dict2str(opt, indent_level=1):
    msg = '\n'
    for k, v in opt.items():
        if isinstance(v, dict):
            msg += ' ' * (indent_level * 2) + k + ':['
            msg += dict2str(v, indent_level + 1)
            msg += ' ' * (indent_level * 2) + ']\n'
        else:
            msg += ' ' * (indent_level * 2) + k + ': ' + str(v) + '\n'
    return msg

class MessageLogger:
    def __init__(self, opt, logger, start_iter=0):
        self.exp_name = opt['name']; self.interval = opt['logger']['print_freq']
        self.max_iters = opt['train']['total_iter']; self.start_time = time.time(); self.start_iter = start_iter
        self.logger = logger
    def __call__(self, log_vars):
        epoch = log_vars.pop('epoch'); current_iter = log_vars.pop('iter'); lrs = log_vars.pop('lrs')
        message = f'[{self.exp_name[:5]}..][epoch:{epoch:3d}, iter:{current_iter:8,d}, lr:('
        for v in lrs:
            message += f'{v:.3e},'
        message += ')] '
        if 'time' in log_vars:
            iter_time = log_vars.pop('time'); data_time = log_vars.pop('data_time')
            total_time = time.time() - self.start_time
            time_sec_avg = total_time / (current_iter - self.start_iter + 1)
            eta_sec = time_sec_avg * (self.max_iters - current_iter - 1)
            eta_str = str(datetime.timedelta(seconds=int(eta_sec)))
            message += f'[eta: {eta_str}, '
            message += f'time (data): {iter_time:.3f} ({data_time:.3f})] '
        for k, v in log_vars.items():
            message += f'{k}: {v:.4e} '
        self.logger.info(message)

def log_validation(logger, dataset_name, results, best, current_iter):
    msg = f'Validation {dataset_name}\n'
    for metric, value in results.items():
        msg += f'\t # {metric}: {value:.4f}'
        b = best[metric]
        msg += f'\tBest: {b[0]:.4f} @ {b[1]} iter'
        msg += '\n'
    logger.info(msg)
''' 


def basicsr_log_snippet():
    return BASICSR_LOG % BASICSR_BANNER


# ======================================================================================
# BasicSR-style hidden trainer, used by run01 (healthy, noisy/slow), run07 (lq folder =
# gt folder) and run09 (8 training patches).  It reads the option yml, resolves the
# dataroot_* folders to procedurally generated image sets and writes what BasicSR writes.
# ======================================================================================
HIDDEN_SR_COMMON = r'''
import sys, os, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(1)
''' + SYN + METRICS

HIDDEN_BASICSR = HIDDEN_SR_COMMON + basicsr_log_snippet() + r'''
from torch.utils.tensorboard import SummaryWriter

def _imgs(seed, n, h, w):
    r = np.random.default_rng(seed)
    return torch.tensor(np.stack([synth_image(r, h, w) for _ in range(n)]))

def _noisy(clean, seed, sigma=25.):
    g = torch.Generator().manual_seed(seed)
    return clean + torch.randn(clean.shape, generator=g) * sigma / 255.

# the image folders that exist on this machine (procedural stand-ins)
_FOLDERS = {
    'datasets/synthDIV2K/train_HR_sub': lambda: _imgs(0, 64, 48, 48),
    'datasets/synthDIV2K/train_LR_bicubic/X2_sub': lambda: F.avg_pool2d(_imgs(0, 64, 48, 48), 2),
    'datasets/Set5/GTmod12': lambda: _imgs(2024, 5, 32, 32),
    'datasets/Set5/LRbicx2': lambda: F.avg_pool2d(_imgs(2024, 5, 32, 32), 2),
    'datasets/synthSIDD/train/target': lambda: _imgs(11, 48, 48, 48),
    'datasets/synthSIDD/train/input': lambda: _noisy(_imgs(11, 48, 48, 48), 111),
    'datasets/synthSIDD/val/target': lambda: _imgs(12, 8, 32, 32),
    'datasets/synthSIDD/val/input': lambda: _noisy(_imgs(12, 8, 32, 32), 112),
    'datasets/synthSIDD/test/target': lambda: _imgs(13, 8, 32, 32),
    'datasets/synthSIDD/test/input': lambda: _noisy(_imgs(13, 8, 32, 32), 113),
    'datasets/synthBSD/train/gt': lambda: _imgs(21, 8, 48, 48)[:, :, 8:24, 8:24],
    'datasets/synthBSD/train/noisy25': lambda: _noisy(_imgs(21, 8, 48, 48)[:, :, 8:24, 8:24], 121),
    'datasets/synthBSD/val/gt': lambda: _imgs(22, 8, 32, 32),
    'datasets/synthBSD/val/noisy25': lambda: _noisy(_imgs(22, 8, 32, 32), 122),
}

def load_folder(p):
    return _FOLDERS[p]()


class ResidualBlockNoBN(nn.Module):
    def __init__(self, num_feat=64, res_scale=1):
        super().__init__()
        self.res_scale = res_scale
        self.conv1 = nn.Conv2d(num_feat, num_feat, 3, 1, 1, bias=True)
        self.conv2 = nn.Conv2d(num_feat, num_feat, 3, 1, 1, bias=True)
        self.relu = nn.ReLU(inplace=True)
        for m in [self.conv1, self.conv2]:
            nn.init.kaiming_normal_(m.weight); m.weight.data *= 0.1; m.bias.data.zero_()
    def forward(self, x):
        return x + self.conv2(self.relu(self.conv1(x))) * self.res_scale

class MSRResNet(nn.Module):
    def __init__(self, num_in_ch=3, num_out_ch=3, num_feat=64, num_block=16, upscale=4):
        super().__init__()
        self.upscale = upscale
        self.conv_first = nn.Conv2d(num_in_ch, num_feat, 3, 1, 1)
        self.body = nn.Sequential(*[ResidualBlockNoBN(num_feat) for _ in range(num_block)])
        self.upconv1 = nn.Conv2d(num_feat, num_feat * 4, 3, 1, 1)
        self.pixel_shuffle = nn.PixelShuffle(2)
        self.conv_hr = nn.Conv2d(num_feat, num_feat, 3, 1, 1)
        self.conv_last = nn.Conv2d(num_feat, num_out_ch, 3, 1, 1)
        self.lrelu = nn.LeakyReLU(negative_slope=0.1, inplace=True)
    def forward(self, x):
        feat = self.lrelu(self.conv_first(x))
        out = self.body(feat)
        out = self.lrelu(self.pixel_shuffle(self.upconv1(out)))
        out = self.conv_last(self.lrelu(self.conv_hr(out)))
        base = F.interpolate(x, scale_factor=self.upscale, mode='bilinear', align_corners=False)
        return out + base

class DnCNN(nn.Module):
    def __init__(self, num_in_ch=3, num_feat=64, num_conv=17, residual=True):
        super().__init__()
        self.residual = residual
        layers = [nn.Conv2d(num_in_ch, num_feat, 3, 1, 1), nn.ReLU(inplace=True)]
        for _ in range(num_conv - 2):
            layers += [nn.Conv2d(num_feat, num_feat, 3, 1, 1), nn.ReLU(inplace=True)]
        layers += [nn.Conv2d(num_feat, num_in_ch, 3, 1, 1)]
        self.body = nn.Sequential(*layers)
    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)

ARCHS = {'MSRResNet': MSRResNet, 'DnCNN': DnCNN}

def build_net(nopt):
    kw = {k: v for k, v in nopt.items() if k != 'type'}
    return ARCHS[nopt['type']](**kw)


def run_validation(net, lq, gt, crop):
    net.eval(); ps, ss = [], []
    with torch.no_grad():
        for i in range(len(gt)):
            sr = tensor2img(net(lq[i:i + 1])); hr = tensor2img(gt[i:i + 1])
            ps.append(calculate_psnr(sr, hr, crop)); ss.append(calculate_ssim(sr, hr, crop))
    net.train()
    return {'psnr': float(np.mean(ps)), 'ssim': float(np.mean(ss))}


def train(opt_path):
    opt = yaml.safe_load(open(opt_path))
    seed = opt['manual_seed']
    torch.manual_seed(seed); rng = np.random.default_rng(seed)
    scale = opt['scale']
    dopt, vopt = opt['datasets']['train'], opt['datasets']['val']
    train_gt, train_lq = load_folder(dopt['dataroot_gt']), load_folder(dopt['dataroot_lq'])
    val_gt, val_lq = load_folder(vopt['dataroot_gt']), load_folder(vopt['dataroot_lq'])
    tstr = time.strftime('%Y%m%d_%H%M%S')
    logger = get_root_logger(f"train_{opt['name']}_{tstr}.log")
    logger.info(BANNER)
    logger.info(dict2str(opt))
    tb_logger = SummaryWriter(log_dir=os.path.join('tb_logger', opt['name'])) if opt['logger'].get('use_tb_logger') else None
    n_img = len(train_gt); bs = dopt['batch_size_per_gpu']
    iters_per_epoch = math.ceil(n_img * dopt['dataset_enlarge_ratio'] / bs)
    tr = opt['train']
    total_iters = int(tr['total_iter']); total_epochs = math.ceil(total_iters / iters_per_epoch)
    logger.info(f"Dataset [{dopt['type']}] - {dopt['name']} is built.")
    logger.info('Training statistics:'
                f'\n\tNumber of train images: {n_img}'
                f"\n\tDataset enlarge ratio: {dopt['dataset_enlarge_ratio']}"
                f'\n\tBatch size per gpu: {bs}'
                f'\n\tWorld size (gpu number): 1'
                f'\n\tRequire iter number per epoch: {iters_per_epoch}'
                f'\n\tTotal epochs: {total_epochs}; iters: {total_iters}.')
    logger.info(f"Dataset [{vopt['type']}] - {vopt['name']} is built.")
    logger.info(f"Number of val images/folders in {vopt['name']}: {len(val_gt)}")
    net_g = build_net(opt['network_g'])
    n_params = sum(p.numel() for p in net_g.parameters())
    logger.info(f"Network [{opt['network_g']['type']}] is created.")
    logger.info(f"Network: {opt['network_g']['type']}, with parameters: {n_params:,d}")
    logger.info(str(net_g))
    ltype = tr['pixel_opt']['type']
    logger.info(f'Loss [{ltype}] is created.')
    crit = {'L1Loss': F.l1_loss, 'MSELoss': F.mse_loss}[ltype]
    og = dict(tr['optim_g']); otype = og.pop('type')
    if 'betas' in og: og['betas'] = tuple(og['betas'])
    optim = getattr(torch.optim, otype)(net_g.parameters(), **og)
    sopt = dict(tr['scheduler']); stype = sopt.pop('type')
    if stype == 'MultiStepLR':
        sched = torch.optim.lr_scheduler.MultiStepLR(optim, sopt['milestones'], sopt['gamma'])
    else:  # CosineAnnealingRestartLR with a single period
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(optim, sopt['periods'][0], eta_min=sopt['eta_min'])
    logger.info(f"Model [{opt['model_type']}] is created.")
    logger.info('Use cpu prefetch dataloader: num_prefetch_queue = 1')
    logger.info('Start training from epoch: 0, iter: 0')
    msg_logger = MessageLogger(opt, logger)
    os.makedirs('models', exist_ok=True)
    best = {'psnr': (-1, -1), 'ssim': (-1, -1)}
    gs = dopt['gt_size']; lsz = gs // scale
    Hs, Ws = train_gt.shape[-2:]
    start = time.time()
    for current_iter in range(1, total_iters + 1):
        t0 = time.time()
        idx = rng.integers(0, n_img, bs)
        ys = rng.integers(0, (Hs - gs) // scale + 1, bs) * scale; xs = rng.integers(0, (Ws - gs) // scale + 1, bs) * scale
        gt = torch.stack([train_gt[i, :, y:y + gs, x:x + gs] for i, y, x in zip(idx, ys, xs)])
        lq = torch.stack([train_lq[i, :, y // scale:y // scale + lsz, x // scale:x // scale + lsz] for i, y, x in zip(idx, ys, xs)])
        if dopt.get('use_hflip') and rng.random() < 0.5:
            gt, lq = gt.flip(-1), lq.flip(-1)
        if dopt.get('use_rot') and rng.random() < 0.5:
            gt, lq = gt.transpose(-1, -2), lq.transpose(-1, -2)
        t1 = time.time()
        output = net_g(lq)
        l_pix = tr['pixel_opt']['loss_weight'] * crit(output, gt)
        optim.zero_grad(); l_pix.backward(); optim.step(); sched.step()
        t2 = time.time()
        epoch = (current_iter - 1) // iters_per_epoch
        if current_iter % opt['logger']['print_freq'] == 0:
            lv = {'epoch': epoch, 'iter': current_iter, 'lrs': [optim.param_groups[0]['lr']],
                  'time': t2 - t0, 'data_time': t1 - t0, 'l_pix': l_pix.item()}
            if tb_logger:
                tb_logger.add_scalar('losses/l_pix', l_pix.item(), current_iter)
            msg_logger(lv)
        if current_iter % int(opt['logger']['save_checkpoint_freq']) == 0:
            logger.info('Saving models and training states.')
            torch.save({'params': net_g.state_dict()}, f'models/net_g_{current_iter}.pth')
        if current_iter % int(opt['val']['val_freq']) == 0:
            crop = opt['val']['metrics']['psnr']['crop_border']
            res = run_validation(net_g, val_lq, val_gt, crop)
            for k, v in res.items():
                if v > best[k][0]: best[k] = (v, current_iter)
                if tb_logger:
                    tb_logger.add_scalar(f"metrics/{vopt['name']}/{k}", v, current_iter)
            log_validation(logger, vopt['name'], res, best, current_iter)
    consumed = str(datetime.timedelta(seconds=int(time.time() - start)))
    logger.info(f'End of training. Time consumed: {consumed}')
    logger.info('Save the latest model.')
    torch.save({'params': net_g.state_dict()}, 'models/net_g_latest.pth')
    if tb_logger:
        tb_logger.close()
    for h in list(logger.handlers):
        logger.removeHandler(h)
    return opt


def test(opt_path):
    opt = yaml.safe_load(open(opt_path))
    tstr = time.strftime('%Y%m%d_%H%M%S')
    logger = get_root_logger(f"test_{opt['name']}_{tstr}.log")
    logger.info(BANNER)
    logger.info(dict2str(opt))
    net_g = build_net(opt['network_g'])
    for name, dset in opt['datasets'].items():
        gt, lq = load_folder(dset['dataroot_gt']), load_folder(dset['dataroot_lq'])
        logger.info(f"Dataset [{dset['type']}] - {dset['name']} is built.")
        logger.info(f"Number of test images in {dset['name']}: {len(gt)}")
    logger.info(f"Network [{opt['network_g']['type']}] is created.")
    logger.info(f"Network: {opt['network_g']['type']}, with parameters: {sum(p.numel() for p in net_g.parameters()):,d}")
    logger.info(str(net_g))
    ck = opt['path']['pretrain_network_g']
    logger.info(f"Loading {opt['network_g']['type']} model from {ck}, with param key: [params].")
    net_g.load_state_dict(torch.load(os.path.join('models', os.path.basename(ck)))['params'])
    logger.info(f"Model [{opt['model_type']}] is created.")
    for name, dset in opt['datasets'].items():
        gt, lq = load_folder(dset['dataroot_gt']), load_folder(dset['dataroot_lq'])
        logger.info(f"Testing {dset['name']}...")
        res = run_validation(net_g, lq, gt, opt['val']['metrics']['psnr']['crop_border'])
        best = {k: (v, opt['name']) for k, v in res.items()}
        log_validation(logger, dset['name'], res, best, opt['name'])


if __name__ == '__main__':
    if sys.argv[1] == 'train':
        train(sys.argv[2])
    else:
        test(sys.argv[2])
'''


RUN01_YML = r'''# general settings
name: 101_MSRResNet_x2_synthDIV2K_B8G1
model_type: SRModel
scale: 2
num_gpu: 1  # set num_gpu: 0 for cpu mode
manual_seed: 0

# dataset and data loader settings
datasets:
  train:
    name: synthDIV2K
    type: PairedImageDataset
    dataroot_gt: datasets/synthDIV2K/train_HR_sub
    dataroot_lq: datasets/synthDIV2K/train_LR_bicubic/X2_sub
    meta_info_file: ~
    filename_tmpl: '{}'
    io_backend:
      type: disk

    gt_size: 16
    use_hflip: true
    use_rot: true

    # data loader
    num_worker_per_gpu: 4
    batch_size_per_gpu: 8
    dataset_enlarge_ratio: 20
    prefetch_mode: ~

  val:
    name: Set5
    type: PairedImageDataset
    dataroot_gt: datasets/Set5/GTmod12
    dataroot_lq: datasets/Set5/LRbicx2
    io_backend:
      type: disk

# network structures
network_g:
  type: MSRResNet
  num_in_ch: 3
  num_out_ch: 3
  num_feat: 24
  num_block: 3
  upscale: 2

# path
path:
  pretrain_network_g: ~
  param_key_g: params
  strict_load_g: true
  resume_state: ~

# training settings
train:
  ema_decay: 0
  optim_g:
    type: Adam
    lr: !!float 2e-4
    weight_decay: 0
    betas: [0.9, 0.99]

  scheduler:
    type: MultiStepLR
    milestones: [1000, 1300]
    gamma: 0.5

  total_iter: 1500
  warmup_iter: -1  # no warm up

  # losses
  pixel_opt:
    type: L1Loss
    loss_weight: 1.0
    reduction: mean

# validation settings
val:
  val_freq: !!float 150
  save_img: false

  metrics:
    psnr: # metric name, can be arbitrary
      type: calculate_psnr
      crop_border: 2
      test_y_channel: false
    ssim:
      type: calculate_ssim
      crop_border: 2
      test_y_channel: false

# logging settings
logger:
  print_freq: 25
  save_checkpoint_freq: !!float 500
  use_tb_logger: true
  wandb:
    project: ~
    resume_id: ~

# dist training settings
dist_params:
  backend: nccl
  port: 29500
'''

RUN07_YML = r'''# general settings
name: 203_DnCNN_synthSIDD_denoise
model_type: ImageRestorationModel
scale: 1
num_gpu: 1
manual_seed: 10

datasets:
  train:
    name: synthSIDD
    type: PairedImageDataset
    dataroot_gt: datasets/synthSIDD/train/target
    dataroot_lq: datasets/synthSIDD/train/target
    filename_tmpl: '{}'
    io_backend:
      type: disk

    gt_size: 16
    use_hflip: true
    use_rot: true

    # data loader
    use_shuffle: true
    num_worker_per_gpu: 8
    batch_size_per_gpu: 16
    dataset_enlarge_ratio: 10
    prefetch_mode: ~

  val:
    name: synthSIDD_val
    type: PairedImageDataset
    dataroot_gt: datasets/synthSIDD/val/target
    dataroot_lq: datasets/synthSIDD/val/target
    io_backend:
      type: disk

network_g:
  type: DnCNN
  num_in_ch: 3
  num_feat: 32
  num_conv: 5
  residual: true

# path
path:
  pretrain_network_g: ~
  strict_load_g: true
  resume_state: ~

# training settings
train:
  optim_g:
    type: AdamW
    lr: !!float 1e-3
    weight_decay: !!float 1e-4
    betas: [0.9, 0.9]

  scheduler:
    type: CosineAnnealingRestartLR
    periods: [600]
    restart_weights: [1]
    eta_min: !!float 1e-6

  total_iter: 600
  warmup_iter: -1 # no warm up

  # losses
  pixel_opt:
    type: L1Loss
    loss_weight: 1
    reduction: mean

# validation settings
val:
  val_freq: !!float 50
  save_img: false
  use_image: false

  metrics:
    psnr: # metric name, can be arbitrary
      type: calculate_psnr
      crop_border: 0
      test_y_channel: false
    ssim:
      type: calculate_ssim
      crop_border: 0
      test_y_channel: false

# logging settings
logger:
  print_freq: 50
  save_checkpoint_freq: !!float 600
  use_tb_logger: false
  wandb:
    project: ~
    resume_id: ~

# dist training settings
dist_params:
  backend: nccl
  port: 29500
'''

RUN07_TEST_YML = r'''# general settings
name: 203_DnCNN_synthSIDD_denoise
model_type: ImageRestorationModel
scale: 1
num_gpu: 1
manual_seed: 10

datasets:
  test_1:
    name: synthSIDD_test
    type: PairedImageDataset
    dataroot_gt: datasets/synthSIDD/test/target
    dataroot_lq: datasets/synthSIDD/test/input
    io_backend:
      type: disk

network_g:
  type: DnCNN
  num_in_ch: 3
  num_feat: 32
  num_conv: 5
  residual: true

path:
  pretrain_network_g: experiments/203_DnCNN_synthSIDD_denoise/models/net_g_latest.pth
  strict_load_g: true

val:
  save_img: false
  suffix: ~

  metrics:
    psnr:
      type: calculate_psnr
      crop_border: 0
      test_y_channel: false
    ssim:
      type: calculate_ssim
      crop_border: 0
      test_y_channel: false
'''

RUN09_YML = r'''# general settings
name: 305_DnCNN_synthBSD_sigma25
model_type: ImageRestorationModel
scale: 1
num_gpu: 1
manual_seed: 3

datasets:
  train:
    name: synthBSD
    type: PairedImageDataset
    dataroot_gt: datasets/synthBSD/train/gt
    dataroot_lq: datasets/synthBSD/train/noisy25
    filename_tmpl: '{}'
    io_backend:
      type: disk

    gt_size: 16
    use_hflip: false
    use_rot: false

    # data loader
    use_shuffle: true
    num_worker_per_gpu: 2
    batch_size_per_gpu: 8
    dataset_enlarge_ratio: 1
    prefetch_mode: ~

  val:
    name: synthBSD_val
    type: PairedImageDataset
    dataroot_gt: datasets/synthBSD/val/gt
    dataroot_lq: datasets/synthBSD/val/noisy25
    io_backend:
      type: disk

network_g:
  type: DnCNN
  num_in_ch: 3
  num_feat: 48
  num_conv: 6
  residual: true

# path
path:
  pretrain_network_g: ~
  strict_load_g: true
  resume_state: ~

# training settings
train:
  optim_g:
    type: Adam
    lr: !!float 1e-3
    weight_decay: 0
    betas: [0.9, 0.999]

  scheduler:
    type: MultiStepLR
    milestones: [800, 1000]
    gamma: 0.5

  total_iter: 1200
  warmup_iter: -1 # no warm up

  # losses
  pixel_opt:
    type: L1Loss
    loss_weight: 1
    reduction: mean

# validation settings
val:
  val_freq: !!float 50
  save_img: false

  metrics:
    psnr:
      type: calculate_psnr
      crop_border: 0
      test_y_channel: false
    ssim:
      type: calculate_ssim
      crop_border: 0
      test_y_channel: false

# logging settings
logger:
  print_freq: 25
  save_checkpoint_freq: !!float 600
  use_tb_logger: true
  wandb:
    project: ~
    resume_id: ~

# dist training settings
dist_params:
  backend: nccl
  port: 29500
'''


# ======================================================================================
# run02: KAIR, x2 SR (MSRResNet1), Adam lr far too high (5e-2)  (no train.py shipped)
# ======================================================================================
RUN02_JSON = r'''{
  "task": "msrresnet_psnr_x2"     //  root/task/images-models-options
  , "model": "plain" // "plain" | "plain2" if two inputs
  , "gpu_ids": [0]
  , "dist": false

  , "scale": 2       // broadcast to "datasets"
  , "n_channels": 3  // broadcast to "datasets", 1 for grayscale, 3 for color

  , "path": {
    "root": "superresolution"            // "denoising" | "superresolution" | "dejpeg"
    , "pretrained_netG": null      // path of pretrained model
    , "pretrained_netE": null      // path of pretrained model
  }

  , "datasets": {
    "train": {
      "name": "train_dataset"           // just name
      , "dataset_type": "sr"         // "dncnn" | "dnpatch" | "fdncnn" | "ffdnet" | "sr" | "srmd" | "dpsr" | "plain" | "plainpatch" | "jpeg"
      , "dataroot_H": "trainsets/synth_testcards"// path of H training dataset. DIV2K (800 training images)
      , "dataroot_L": null              // path of L training dataset

      , "H_size": 16                    // 96/144|192/384 | 128/192/256/512. LR patch size is set to 48 or 64 when compared with RCAN or RRDB.

      , "dataloader_shuffle": true
      , "dataloader_num_workers": 8
      , "dataloader_batch_size": 16     // batch size 1 | 16 | 32 | 48 | 64 | 128. Total batch size =4x8=32 in SwinIR
    }
    , "test": {
      "name": "test_dataset"            // just name
      , "dataset_type": "sr"         // "dncnn" | "dnpatch" | "fdncnn" | "ffdnet" | "sr" | "srmd" | "dpsr" | "plain" | "plainpatch" | "jpeg"
      , "dataroot_H": "testsets/set5"  // path of H testing dataset
      , "dataroot_L": null              // path of L testing dataset

    }
  }

  , "netG": {
    "net_type": "msrresnet1" // "dncnn" | "fdncnn" | "ffdnet" | "srmd" | "dpsr" | "srresnet0" |  "srresnet1" | "rrdbnet"
    , "in_nc": 3        // input channel number
    , "out_nc": 3       // ouput channel number
    , "nc": 24          // 64 for "dncnn"
    , "nb": 3           // 17 for "dncnn", 20 for dncnn3, 16 for "srresnet"
    , "gc": 32          // unused
    , "ng": 2           // unused
    , "reduction": 16  // unused
    , "act_mode": "R"   // "BR" for BN+ReLU | "R" for ReLU
    , "upsample_mode": "pixelshuffle"         // "pixelshuffle" | "convtranspose" | "upconv"
    , "downsample_mode": "strideconv"         // "strideconv" | "avgpool" | "maxpool"

    , "init_type": "kaiming_normal"         // "orthogonal" | "normal" | "uniform" | "xavier_normal" | "xavier_uniform" | "kaiming_normal" | "kaiming_uniform"
    , "init_bn_type": "uniform"         // "uniform" | "constant"
    , "init_gain": 0.2
  }

  , "train": {
    "G_lossfn_type": "l1"               // "l1" preferred | "l2sum" | "l2" | "ssim" | "charbonnier"
    , "G_lossfn_weight": 1.0            // default

    , "E_decay": 0                  // Exponential Moving Average for netG: set 0 to disable; default setting 0.999

    , "G_optimizer_type": "adam"        // fixed, adam is enough
    , "G_optimizer_lr": 5e-2            // learning rate
    , "G_optimizer_wd": 0               // weight decay, default 0
    , "G_optimizer_clipgrad": null      // unused
    , "G_optimizer_reuse": true         //

    , "G_scheduler_type": "MultiStepLR" // "MultiStepLR" is enough
    , "G_scheduler_milestones": [500, 700]
    , "G_scheduler_gamma": 0.5

    , "G_regularizer_orthstep": null    // unused
    , "G_regularizer_clipstep": null    // unused

    , "G_param_strict": true
    , "E_param_strict": true

    , "checkpoint_test": 100           // for testing
    , "checkpoint_save": 400           // for saving model
    , "checkpoint_print": 20           // for print
  }
}
'''

KAIR_COMMON = r'''
import logging, datetime, re, json
from collections import OrderedDict

def logger_info(logger_name, log_path='default_logger.log'):
    log = logging.getLogger(logger_name)
    level = logging.INFO
    formatter = logging.Formatter('%(asctime)s.%(msecs)03d : %(message)s', datefmt='%y-%m-%d %H:%M:%S')
    fh = logging.FileHandler(log_path, mode='a'); fh.setFormatter(formatter)
    log.setLevel(level); log.addHandler(fh)
    sh = logging.StreamHandler(sys.stdout); sh.setFormatter(formatter); log.addHandler(sh)

def parse_json_with_comments(path):
    json_str = ''
    with open(path, 'r') as f:
        for line in f:
            line = line.split('//')[0] + '\n'
            json_str += line
    return json.loads(json_str, object_pairs_hook=OrderedDict)

def dict2str(opt, indent_l=1):
    msg = ''
    for k, v in opt.items():
        if isinstance(v, dict):
            msg += ' ' * (indent_l * 2) + k + ':[\n'
            msg += dict2str(v, indent_l + 1)
            msg += ' ' * (indent_l * 2) + ']\n'
        else:
            msg += ' ' * (indent_l * 2) + k + ': ' + str(v) + '\n'
    return msg

def describe_params(model):
    msg = '\n'
    msg += ' | {:^6s} | {:^6s} | {:^6s} | {:^6s} || {:<20s}'.format('mean', 'min', 'max', 'std', 'shape', 'param_name') + '\n'
    for name, param in model.state_dict().items():
        if not 'num_batches_tracked' in name:
            v = param.data.clone().float()
            msg += ' | {:>6.3f} | {:>6.3f} | {:>6.3f} | {:>6.3f} | {} || {:s}'.format(v.mean(), v.min(), v.max(), v.std(), v.shape, name) + '\n'
    return msg
'''

RUN02_SCRIPT = HIDDEN_SR_COMMON + KAIR_COMMON + r'''
json_path = 'options/train_msrresnet_psnr.json'
opt = parse_json_with_comments(json_path)
seed = 2371
torch.manual_seed(seed); rng = np.random.default_rng(seed)
logger_name = 'train'
logger_info(logger_name, os.path.join('train.log'))
logger = logging.getLogger(logger_name)
logger.info(dict2str(opt))
logger.info('Random seed: {}'.format(seed))

class MSRResNet1(nn.Module):
    def __init__(self, in_nc=3, out_nc=3, nf=64, nb=16, upscale=4):
        super().__init__()
        self.upscale = upscale
        self.conv_first = nn.Conv2d(in_nc, nf, 3, 1, 1, bias=True)
        self.recon_trunk = nn.Sequential(*[ResidualBlock_noBN(nf) for _ in range(nb)])
        self.upconv1 = nn.Conv2d(nf, nf * 4, 3, 1, 1, bias=True)
        self.pixel_shuffle = nn.PixelShuffle(2)
        self.HRconv = nn.Conv2d(nf, nf, 3, 1, 1, bias=True)
        self.conv_last = nn.Conv2d(nf, out_nc, 3, 1, 1, bias=True)
        self.lrelu = nn.LeakyReLU(negative_slope=0.1, inplace=True)
        for m in [self.conv_first, self.upconv1, self.HRconv, self.conv_last]:
            nn.init.kaiming_normal_(m.weight, a=0, mode='fan_in'); m.weight.data *= 0.1; m.bias.data.zero_()
    def forward(self, x):
        fea = self.lrelu(self.conv_first(x))
        out = self.recon_trunk(fea)
        out = self.lrelu(self.pixel_shuffle(self.upconv1(out)))
        out = self.conv_last(self.lrelu(self.HRconv(out)))
        base = F.interpolate(x, scale_factor=self.upscale, mode='bilinear', align_corners=False)
        return out + base

class ResidualBlock_noBN(nn.Module):
    def __init__(self, nf=64):
        super().__init__()
        self.conv1 = nn.Conv2d(nf, nf, 3, 1, 1, bias=True); self.conv2 = nn.Conv2d(nf, nf, 3, 1, 1, bias=True)
        for m in [self.conv1, self.conv2]:
            nn.init.kaiming_normal_(m.weight, a=0, mode='fan_in'); m.weight.data *= 0.1; m.bias.data.zero_()
    def forward(self, x):
        return x + self.conv2(F.relu(self.conv1(x), inplace=True))

train_H = torch.tensor(np.stack([synth_image(rng, 48, 48) for _ in range(64)]))
trng = np.random.default_rng(2024)
test_H = torch.tensor(np.stack([synth_image(trng, 32, 32) for _ in range(5)]))
test_L = F.avg_pool2d(test_H, 2)
names = ['baby', 'bird', 'butterfly', 'head', 'woman']
dopt = opt['datasets']['train']; bs = dopt['dataloader_batch_size']; ps = dopt['H_size']
train_size = int(math.ceil(len(train_H) / bs))
logger.info('Number of train images: {:,d}, iters: {:,d}'.format(len(train_H), train_size))

nopt = opt['netG']
netG = MSRResNet1(nopt['in_nc'], nopt['out_nc'], nopt['nc'], nopt['nb'], opt['scale'])
msg = '\n'
msg += 'Networks name: {}'.format(netG.__class__.__name__) + '\n'
msg += 'Params number: {}'.format(sum(map(lambda x: x.numel(), netG.parameters()))) + '\n'
msg += 'Net structure:\n{}'.format(str(netG)) + '\n'
logger.info(msg)
logger.info(describe_params(netG))
topt = opt['train']
G_optimizer = torch.optim.Adam([p for p in netG.parameters() if p.requires_grad], lr=topt['G_optimizer_lr'], betas=(0.9, 0.999), weight_decay=topt['G_optimizer_wd'])
G_scheduler = torch.optim.lr_scheduler.MultiStepLR(G_optimizer, topt['G_scheduler_milestones'], topt['G_scheduler_gamma'])
os.makedirs('models', exist_ok=True)
current_step = 0
total = 800
done = False
for epoch in range(1000000):
    perm = rng.permutation(len(train_H))
    for b in range(train_size):
        current_step += 1
        idx = perm[b * bs:(b + 1) * bs]
        ys = rng.integers(0, 48 - ps + 1, len(idx)); xs = rng.integers(0, 48 - ps + 1, len(idx))
        H = torch.stack([train_H[i, :, y:y + ps, x:x + ps] for i, y, x in zip(idx, ys, xs)])
        if rng.random() < 0.5: H = H.flip(-1)
        L = F.avg_pool2d(H, 2)
        netG.train()
        G_optimizer.zero_grad()
        E = netG(L)
        G_loss = topt['G_lossfn_weight'] * F.l1_loss(E, H)
        G_loss.backward()
        G_optimizer.step()
        G_scheduler.step()
        if current_step % topt['checkpoint_print'] == 0:
            message = '<epoch:{:3d}, iter:{:8,d}, lr:{:.3e}> '.format(epoch, current_step, G_optimizer.param_groups[0]['lr'])
            message += '{:s}: {:.3e} '.format('G_loss', G_loss.item())
            logger.info(message)
        if current_step % topt['checkpoint_save'] == 0:
            logger.info('Saving the model.')
            torch.save(netG.state_dict(), os.path.join('models', '{}_G.pth'.format(current_step)))
        if current_step % topt['checkpoint_test'] == 0:
            avg_psnr = 0.0
            netG.eval()
            with torch.no_grad():
                for idx_t in range(len(test_H)):
                    E_img = tensor2img(netG(test_L[idx_t:idx_t + 1])); H_img = tensor2img(test_H[idx_t:idx_t + 1])
                    current_psnr = calculate_psnr(E_img, H_img, crop_border=opt['scale'])
                    logger.info('{:->4d}--> {:>10s} | {:<4.2f}dB'.format(idx_t + 1, names[idx_t] + '.png', current_psnr))
                    avg_psnr += current_psnr
            avg_psnr = avg_psnr / len(test_H)
            logger.info('<epoch:{:3d}, iter:{:8,d}, Average PSNR : {:<.2f}dB\n'.format(epoch, current_step, avg_psnr))
        if current_step >= total:
            done = True
            break
    if done:
        break
'''


# ======================================================================================
# run03: nerfstudio-style 2-D neural field; every field parameter is switched off by a
#        loop meant for the EMA copy -> only the 12 colour-correction numbers train
#        (train.py shipped)
# ======================================================================================
RUN03_TRAIN = r'''"""Fit a single test-card image with a grid-encoded field, nerfstudio-style trainer loop.

usage: python train.py
"""
import copy
import datetime
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)

CFG = dict(
    experiment_name="test_card",
    method_name="grid-field",
    max_num_iterations=2000,
    steps_per_log=10,
    steps_per_eval_all_images=100,
    steps_per_save=500,
    train_num_rays_per_batch=4096,
    image_hw=(96, 96),
    num_levels=8,
    features_per_level=2,
    base_resolution=8,
    per_level_scale=1.5,
    hidden_dim=64,
    num_layers=2,
    lr_fields=1e-2,
    lr_final_fields=1e-4,
    lr_color=1e-3,
    ema_decay=0.995,
    seed=42,
)
''' + SYN.replace('def synth_image', 'def make_test_card') + r'''

class GridEncoding(nn.Module):
    def __init__(self, num_levels, features_per_level, base_resolution, per_level_scale):
        super().__init__()
        self.res = [int(base_resolution * per_level_scale ** l) for l in range(num_levels)]
        self.tables = nn.ParameterList(
            [nn.Parameter(torch.empty((r + 1) * (r + 1), features_per_level).uniform_(-1e-4, 1e-4)) for r in self.res])

    def forward(self, xy):  # xy in [0, 1]
        feats = []
        for r, table in zip(self.res, self.tables):
            p = xy * r
            p0 = p.floor().clamp(0, r - 1)
            w = p - p0
            i0 = p0.long()
            def at(dx, dy):
                return table[(i0[:, 1] + dy) * (r + 1) + (i0[:, 0] + dx)]
            f = (at(0, 0) * ((1 - w[:, :1]) * (1 - w[:, 1:])) + at(1, 0) * (w[:, :1] * (1 - w[:, 1:]))
                 + at(0, 1) * ((1 - w[:, :1]) * w[:, 1:]) + at(1, 1) * (w[:, :1] * w[:, 1:]))
            feats.append(f)
        return torch.cat(feats, -1)


class ImageField(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoding = GridEncoding(cfg["num_levels"], cfg["features_per_level"], cfg["base_resolution"], cfg["per_level_scale"])
        d = cfg["num_levels"] * cfg["features_per_level"]
        layers = []
        for _ in range(cfg["num_layers"]):
            layers += [nn.Linear(d, cfg["hidden_dim"]), nn.ReLU()]
            d = cfg["hidden_dim"]
        layers += [nn.Linear(d, 3)]
        self.mlp_head = nn.Sequential(*layers)

    def forward(self, xy):
        return torch.sigmoid(self.mlp_head(self.encoding(xy)))


class ColorCorrection(nn.Module):
    """per-image affine colour transform (like an appearance embedding for one image)"""
    def __init__(self):
        super().__init__()
        self.matrix = nn.Parameter(torch.eye(3))
        self.bias = nn.Parameter(torch.zeros(3))

    def forward(self, rgb):
        return rgb @ self.matrix.T + self.bias


def ssim(a, b):
    g = torch.exp(-(torch.arange(11.) - 5) ** 2 / 4.5); g = g / g.sum(); w = (g[:, None] * g[None]).expand(3, 1, 11, 11)
    mu1, mu2 = F.conv2d(a, w, groups=3), F.conv2d(b, w, groups=3)
    s1 = F.conv2d(a * a, w, groups=3) - mu1 ** 2; s2 = F.conv2d(b * b, w, groups=3) - mu2 ** 2
    s12 = F.conv2d(a * b, w, groups=3) - mu1 * mu2
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    return (((2 * mu1 * mu2 + c1) * (2 * s12 + c2)) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))).mean()


def fmt_time(sec):
    if sec < 1:
        return f"{sec * 1000:.3f} ms"
    m, s = divmod(sec, 60)
    return f"{int(m)} m, {int(s)} s" if m else f"{s:.3f} s"


def write_config(path, cfg, out_dir):
    lines = [
        "!!python/object:nerfstudio.engine.trainer.TrainerConfig",
        "_target: !!python/name:nerfstudio.engine.trainer.Trainer ''",
        f"experiment_name: {cfg['experiment_name']}",
        f"method_name: {cfg['method_name']}",
        f"output_dir: !!python/object/apply:pathlib.PosixPath\n- outputs",
        f"timestamp: {out_dir}",
        "machine: !!python/object:nerfstudio.configs.base_config.MachineConfig",
        "  device_type: cuda",
        "  num_devices: 1",
        "  seed: 42",
        "mixed_precision: false",
        f"max_num_iterations: {cfg['max_num_iterations']}",
        f"steps_per_eval_all_images: {cfg['steps_per_eval_all_images']}",
        f"steps_per_save: {cfg['steps_per_save']}",
        "save_only_latest_checkpoint: true",
        "logging: !!python/object:nerfstudio.configs.base_config.LoggingConfig",
        f"  steps_per_log: {cfg['steps_per_log']}",
        "  max_buffer_size: 20",
        "vis: tensorboard",
        "optimizers:",
        "  fields:",
        "    optimizer: !!python/object:nerfstudio.engine.optimizers.AdamOptimizerConfig",
        "      _target: !!python/name:torch.optim.adam.Adam ''",
        "      eps: 1.0e-15",
        f"      lr: {cfg['lr_fields']}",
        "      max_norm: null",
        "      weight_decay: 0",
        "    scheduler: !!python/object:nerfstudio.engine.schedulers.ExponentialDecaySchedulerConfig",
        "      _target: !!python/name:nerfstudio.engine.schedulers.ExponentialDecayScheduler ''",
        f"      lr_final: {cfg['lr_final_fields']}",
        f"      max_steps: {cfg['max_num_iterations']}",
        "  color_correction:",
        "    optimizer: !!python/object:nerfstudio.engine.optimizers.AdamOptimizerConfig",
        "      _target: !!python/name:torch.optim.adam.Adam ''",
        "      eps: 1.0e-15",
        f"      lr: {cfg['lr_color']}",
        "      max_norm: null",
        "      weight_decay: 0",
        "    scheduler: null",
        "pipeline: !!python/object:nerfstudio.pipelines.base_pipeline.VanillaPipelineConfig",
        "  datamanager: !!python/object:nerfstudio.data.datamanagers.base_datamanager.VanillaDataManagerConfig",
        "    data: data/test_card.png",
        f"    train_num_rays_per_batch: {cfg['train_num_rays_per_batch']}",
        "  model: !!python/object:grid_field.GridFieldModelConfig",
        f"    num_levels: {cfg['num_levels']}",
        f"    features_per_level: {cfg['features_per_level']}",
        f"    base_res: {cfg['base_resolution']}",
        f"    per_level_scale: {cfg['per_level_scale']}",
        f"    hidden_dim: {cfg['hidden_dim']}",
        f"    num_layers: {cfg['num_layers']}",
        f"    ema_decay: {cfg['ema_decay']}",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    cfg = CFG
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])
    H, W = cfg["image_hw"]
    image = torch.tensor(make_test_card(rng, H, W)).permute(1, 2, 0).reshape(-1, 3)
    ys, xs = torch.meshgrid((torch.arange(H) + 0.5) / H, (torch.arange(W) + 0.5) / W, indexing="ij")
    coords = torch.stack([xs, ys], -1).reshape(-1, 2)

    out_dir = datetime.datetime.now().strftime("%Y-%m-%d_%H%M%S")
    print(f"[{time.strftime('%H:%M:%S')}] Saving config to: outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/config.yml")
    write_config("config.yml", cfg, out_dir)
    print(f"           Saving checkpoints to: outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/nerfstudio_models")
    writer = SummaryWriter(log_dir=".")

    field = ImageField(cfg)
    ema_field = copy.deepcopy(field)
    for p in field.parameters():
        p.requires_grad_(False)
    color = ColorCorrection()

    optimizers = {
        "fields": torch.optim.Adam(field.parameters(), lr=cfg["lr_fields"], eps=1e-15),
        "color_correction": torch.optim.Adam(color.parameters(), lr=cfg["lr_color"], eps=1e-15),
    }
    gamma = (cfg["lr_final_fields"] / cfg["lr_fields"]) ** (1 / cfg["max_num_iterations"])
    schedulers = {"fields": torch.optim.lr_scheduler.ExponentialLR(optimizers["fields"], gamma)}
    named = [("field." + n, p) for n, p in field.named_parameters()] + [("color_correction." + n, p) for n, p in color.named_parameters()]
    n_rays = cfg["train_num_rays_per_batch"]
    total = cfg["max_num_iterations"]
    os.makedirs("nerfstudio_models", exist_ok=True)
    print("Step (% Done)       Train Iter (time)    ETA (time)           Train Rays / Sec                       ")
    print("-----------------------------------------------------------------------------------                   ")
    t_start = time.time()
    for step in range(total):
        t0 = time.time()
        idx = torch.randint(0, H * W, (n_rays,))
        rgb = color(field(coords[idx]))
        rgb_loss = F.mse_loss(rgb, image[idx])
        loss = rgb_loss
        for o in optimizers.values():
            o.zero_grad()
        loss.backward()
        total_grad = 0.0
        grads = {}
        for tag, value in named:
            if value.grad is not None:
                g = value.grad.norm().item()
                grads[f"Gradients/{tag}"] = g
                total_grad += g
        grads["Gradients/Total"] = total_grad
        for o in optimizers.values():
            o.step()
        for s in schedulers.values():
            s.step()
        with torch.no_grad():
            for pe, pf in zip(ema_field.parameters(), field.parameters()):
                pe.mul_(cfg["ema_decay"]).add_(pf, alpha=1 - cfg["ema_decay"])
        dt = time.time() - t0
        if step % cfg["steps_per_log"] == 0:
            psnr = -10 * math.log10(rgb_loss.item())
            writer.add_scalar("Train Loss", loss.item(), step)
            writer.add_scalar("Train Loss Dict/rgb_loss", rgb_loss.item(), step)
            writer.add_scalar("Train Metrics Dict/psnr", psnr, step)
            for k, v in grads.items():
                writer.add_scalar(k, v, step)
            for k, o in optimizers.items():
                writer.add_scalar(f"learning_rate/{k}", o.param_groups[0]["lr"], step)
            writer.add_scalar("Train Iter (time)", dt, step)
            writer.add_scalar("Train Rays / Sec", n_rays / dt, step)
        if step % 100 == 0 and step > 0:
            eta = (time.time() - t_start) / (step + 1) * (total - step)
            done = f"{step} ({100 * step / total:.2f}%)"
            print(f"{done:<20s}{fmt_time(dt):<21s}{fmt_time(eta):<21s}{n_rays / dt / 1000:.2f} K")
        if step % cfg["steps_per_eval_all_images"] == 0 or step == total - 1:
            t_ev = time.time()
            with torch.no_grad():
                pred = color(field(coords)).clamp(0, 1)
            ev_dt = time.time() - t_ev
            with torch.no_grad():
                mse = F.mse_loss(pred, image).item()
                ev_psnr = 10 * math.log10(1.0 / mse)
                ev_ssim = ssim(pred.reshape(1, H, W, 3).permute(0, 3, 1, 2), image.reshape(1, H, W, 3).permute(0, 3, 1, 2)).item()
            writer.add_scalar("Eval Images Metrics Dict (all images)/psnr", ev_psnr, step)
            writer.add_scalar("Eval Images Metrics Dict (all images)/ssim", ev_ssim, step)
            writer.add_scalar("Eval Loss", mse, step)
        if (step % cfg["steps_per_save"] == 0 and step > 0) or step == total - 1:
            for old in os.listdir("nerfstudio_models"):
                os.remove(os.path.join("nerfstudio_models", old))
            torch.save({"step": step, "pipeline": {**{"_model.field." + k: v for k, v in field.state_dict().items()},
                                                   **{"_model.color_correction." + k: v for k, v in color.state_dict().items()},
                                                   **{"_model.ema_field." + k: v for k, v in ema_field.state_dict().items()}},
                        "optimizers": {k: o.state_dict() for k, o in optimizers.items()}},
                       f"nerfstudio_models/step-{step:09d}.ckpt")
    writer.close()
    print("-" * 83)
    print("Training Finished")
    print(f"Config File           outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/config.yml")
    print(f"Checkpoint Directory  outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/nerfstudio_models")
    with open("eval.json", "w") as f:
        json.dump({"experiment_name": cfg["experiment_name"], "method_name": cfg["method_name"],
                   "checkpoint": f"outputs/{cfg['experiment_name']}/{cfg['method_name']}/{out_dir}/nerfstudio_models/step-{total - 1:09d}.ckpt",
                   "results": {"psnr": ev_psnr, "ssim": ev_ssim, "num_rays_per_sec": H * W / ev_dt, "fps": 1.0 / ev_dt}}, f, indent=2)


if __name__ == "__main__":
    main()
'''


# ======================================================================================
# run06: instant-ngp style image fitting (grid encoding + tiny MLP), small batch ->
#        noisy loss, slow but steady progress.  HEALTHY (train.py shipped)
# ======================================================================================
RUN06_CONFIG = r'''{
	"loss": {
		"otype": "L2"
	},
	"optimizer": {
		"otype": "ExponentialDecay",
		"decay_start": 1500,
		"decay_interval": 500,
		"decay_base": 0.5,
		"nested": {
			"otype": "Adam",
			"learning_rate": 5e-3,
			"beta1": 0.9,
			"beta2": 0.99,
			"epsilon": 1e-15,
			"l2_reg": 1e-6
		}
	},
	"encoding": {
		"otype": "HashGrid",
		"n_levels": 12,
		"n_features_per_level": 2,
		"log2_hashmap_size": 15,
		"base_resolution": 8,
		"per_level_scale": 1.4
	},
	"network": {
		"otype": "FullyFusedMLP",
		"activation": "ReLU",
		"output_activation": "None",
		"n_neurons": 32,
		"n_hidden_layers": 2
	},
	"training": {
		"n_steps": 3000,
		"batch_size": 256,
		"eval_every": 100,
		"image": "data/test_card_256.png"
	}
}
'''

RUN06_TRAIN = r'''# image-fitting with a multires grid encoding + tiny MLP, torch port of instant-ngp's "image" sample
import json, math, sys, time, datetime
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(1337)
''' + SYN.replace('def synth_image', 'def load_test_card') + r'''

cfg = json.load(open("base.json"))
enc, net, optc, tr = cfg["encoding"], cfg["network"], cfg["optimizer"], cfg["training"]


class MultiresGrid(nn.Module):
    # hash table is big enough for every level at this image size -> dense grids
    def __init__(self, n_levels, n_feat, base_res, scale):
        super().__init__()
        self.res = [int(math.floor(base_res * scale ** l)) for l in range(n_levels)]
        self.tables = nn.ParameterList([nn.Parameter(torch.empty((r + 1) ** 2, n_feat).uniform_(-1e-4, 1e-4)) for r in self.res])
        self.out_dim = n_levels * n_feat

    def forward(self, x):
        out = []
        for r, t in zip(self.res, self.tables):
            p = x * r
            p0 = p.floor().clamp(0, r - 1)
            w = p - p0
            i = p0.long()
            base = i[:, 1] * (r + 1) + i[:, 0]
            wx, wy = w[:, :1], w[:, 1:]
            out.append(t[base] * (1 - wx) * (1 - wy) + t[base + 1] * wx * (1 - wy)
                       + t[base + r + 1] * (1 - wx) * wy + t[base + r + 2] * wx * wy)
        return torch.cat(out, -1)


class NGPImage(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoding = MultiresGrid(enc["n_levels"], enc["n_features_per_level"], enc["base_resolution"], enc["per_level_scale"])
        layers, d = [], self.encoding.out_dim
        for _ in range(net["n_hidden_layers"]):
            layers += [nn.Linear(d, net["n_neurons"], bias=False), nn.ReLU()]
            d = net["n_neurons"]
        layers += [nn.Linear(d, 3, bias=False)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(self.encoding(x))


rng = np.random.default_rng(7)
img = load_test_card(rng, 256, 256)
# fine grain / texture detail so the card is not trivially smooth
for cell, amp in ((2, 0.10), (4, 0.08), (8, 0.06)):
    g = rng.uniform(-1, 1, (3, 256 // cell + 1, 256 // cell + 1)).astype(np.float32)
    img = img + amp * np.kron(g, np.ones((1, cell, cell), np.float32))[:, :256, :256]
img = torch.tensor(np.clip(img, 0, 1))
H, W = img.shape[1:]
target = img.permute(1, 2, 0).reshape(-1, 3)
ys, xs = torch.meshgrid((torch.arange(H) + 0.5) / H, (torch.arange(W) + 0.5) / W, indexing="ij")
xy = torch.stack([xs, ys], -1).reshape(-1, 2)

model = NGPImage()
nested = optc["nested"]
opt = torch.optim.Adam([
    {"params": model.encoding.parameters(), "weight_decay": 0.0},
    {"params": model.network.parameters(), "weight_decay": nested["l2_reg"]},
], lr=nested["learning_rate"], betas=(nested["beta1"], nested["beta2"]), eps=nested["epsilon"])


def lr_at(step):
    if step < optc["decay_start"]:
        return nested["learning_rate"]
    k = (step - optc["decay_start"]) // optc["decay_interval"] + 1
    return nested["learning_rate"] * optc["decay_base"] ** k


n_steps, bs = tr["n_steps"], tr["batch_size"]
log = open("train_log.txt", "w")
csv = open("metrics.csv", "w")
csv.write("step,loss,loss_ema,psnr,lr,elapsed_s\n")


def say(msg):
    print(msg); log.write(msg + "\n"); log.flush()


say(f"{datetime.datetime.now():%H:%M:%S} INFO     Loading image from '{tr['image']}' ({W}x{H})")
say(f"{datetime.datetime.now():%H:%M:%S} INFO     Model:         2--[{enc['otype']}]-->{model.encoding.out_dim}--[{net['otype']}(neurons={net['n_neurons']},layers={net['n_hidden_layers'] + 2})]-->3")
say(f"{datetime.datetime.now():%H:%M:%S} INFO       total_encoding_params={sum(p.numel() for p in model.encoding.parameters())} total_network_params={sum(p.numel() for p in model.network.parameters())}")
t0 = time.time()
ema = None
for step in range(1, n_steps + 1):
    for g in opt.param_groups:
        g["lr"] = lr_at(step)
    idx = torch.randint(0, H * W, (bs,))
    pred = model(xy[idx])
    loss = F.mse_loss(pred, target[idx])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    ema = loss.item() if ema is None else 0.95 * ema + 0.05 * loss.item()
    if step % tr["eval_every"] == 0:
        with torch.no_grad():
            full = model(xy).clamp(0, 1)
            psnr = -10 * math.log10(F.mse_loss(full, target).item())
        el = time.time() - t0
        rate = step / el
        bar = "#" * int(20 * step / n_steps)
        say(f"Training: {100 * step // n_steps:3d}%|{bar:<20s}| {step}/{n_steps} [{int(el // 60):02d}:{int(el % 60):02d}<"
            f"{int((n_steps - step) / rate // 60):02d}:{int((n_steps - step) / rate % 60):02d}, {rate:.1f}step/s, loss={loss.item():.5f}]")
        say(f"    step={step:5d}  loss(ema)={ema:.5f}  psnr(full image)={psnr:.2f} dB  lr={opt.param_groups[0]['lr']:.2e}")
        csv.write(f"{step},{loss.item():.6f},{ema:.6f},{psnr:.4f},{opt.param_groups[0]['lr']:.3e},{el:.2f}\n"); csv.flush()
say(f"{datetime.datetime.now():%H:%M:%S} SUCCESS  Training finished after {n_steps} steps, final psnr={psnr:.2f} dB")
torch.save(model.state_dict(), "snapshot.pt")
say(f"{datetime.datetime.now():%H:%M:%S} INFO     Saved snapshot 'snapshot.pt'")
'''


# ======================================================================================
# shared EDSR used by the two OpenMMLab-style hidden scripts (run04, run11)
# ======================================================================================
EDSR_CODE = r'''
class EDSRNet(nn.Module):
    def __init__(self, in_channels=3, out_channels=3, mid_channels=64, num_blocks=16, upscale_factor=4,
                 res_scale=1, rgb_mean=(0.4488, 0.4371, 0.4040), rgb_std=(1.0, 1.0, 1.0)):
        super().__init__()
        self.register_buffer('mean', torch.tensor(rgb_mean).view(1, 3, 1, 1))
        self.register_buffer('std', torch.tensor(rgb_std).view(1, 3, 1, 1))
        self.conv_first = nn.Conv2d(in_channels, mid_channels, 3, 1, 1)
        self.body = nn.ModuleList([nn.Sequential(nn.Conv2d(mid_channels, mid_channels, 3, 1, 1), nn.ReLU(True),
                                                 nn.Conv2d(mid_channels, mid_channels, 3, 1, 1)) for _ in range(num_blocks)])
        self.res_scale = res_scale
        self.conv_after_body = nn.Conv2d(mid_channels, mid_channels, 3, 1, 1)
        self.upsample = nn.Sequential(nn.Conv2d(mid_channels, mid_channels * 4, 3, 1, 1), nn.PixelShuffle(2))
        self.conv_last = nn.Conv2d(mid_channels, out_channels, 3, 1, 1)
    def forward(self, x):
        x = (x - self.mean) / self.std
        x = self.conv_first(x)
        res = x
        for b in self.body:
            res = res + self.res_scale * b(res)
        res = self.conv_after_body(res) + x
        x = self.conv_last(self.upsample(res))
        return x * self.std + self.mean
'''

# ======================================================================================
# run04: mmagic 1.x, EDSR x2, Adam lr=1e-6 (meant 1e-4)  -> lr_too_low  (no train.py)
# ======================================================================================
RUN04_CFG = r'''_base_ = '../_base_/default_runtime.py'

experiment_name = 'edsr_x2c24b3_g1_1500i_synthdiv2k'
work_dir = f'./work_dirs/{experiment_name}'
save_dir = './work_dirs/'

load_from = None

scale = 2
# model settings
model = dict(
    type='BaseEditModel',
    generator=dict(
        type='EDSRNet',
        in_channels=3,
        out_channels=3,
        mid_channels=24,
        num_blocks=3,
        upscale_factor=scale,
        res_scale=1,
        rgb_mean=[0.4488, 0.4371, 0.4040],
        rgb_std=[1.0, 1.0, 1.0]),
    pixel_loss=dict(type='L1Loss', loss_weight=1.0, reduction='mean'),
    train_cfg=dict(),
    test_cfg=dict(metrics=['PSNR'], crop_border=scale),
    data_preprocessor=dict(
        type='DataPreprocessor',
        mean=[0., 0., 0.],
        std=[255., 255., 255.],
    ))

train_pipeline = [
    dict(type='LoadImageFromFile', key='img', color_type='color', channel_order='rgb', imdecode_backend='cv2'),
    dict(type='LoadImageFromFile', key='gt', color_type='color', channel_order='rgb', imdecode_backend='cv2'),
    dict(type='SetValues', dictionary=dict(scale=scale)),
    dict(type='PairedRandomCrop', gt_patch_size=16),
    dict(type='Flip', keys=['img', 'gt'], flip_ratio=0.5, direction='horizontal'),
    dict(type='Flip', keys=['img', 'gt'], flip_ratio=0.5, direction='vertical'),
    dict(type='RandomTransposeHW', keys=['img', 'gt'], transpose_ratio=0.5),
    dict(type='PackInputs')
]
val_pipeline = [
    dict(type='LoadImageFromFile', key='img', color_type='color', channel_order='rgb', imdecode_backend='cv2'),
    dict(type='LoadImageFromFile', key='gt', color_type='color', channel_order='rgb', imdecode_backend='cv2'),
    dict(type='PackInputs')
]

# dataset settings
dataset_type = 'BasicImageDataset'
data_root = 'data'

train_dataloader = dict(
    num_workers=4,
    batch_size=16,
    persistent_workers=False,
    sampler=dict(type='InfiniteSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        ann_file='meta_info_synthDIV2K_GT.txt',
        metainfo=dict(dataset_type='div2k', task_name='sisr'),
        data_root=data_root + '/synthDIV2K',
        data_prefix=dict(img='LR_bicubic/X2_sub', gt='GT_sub'),
        filename_tmpl=dict(img='{}', gt='{}'),
        pipeline=train_pipeline))

val_dataloader = dict(
    num_workers=4,
    persistent_workers=False,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        metainfo=dict(dataset_type='set5', task_name='sisr'),
        data_root=data_root + '/Set5',
        data_prefix=dict(img='LRbicx2', gt='GTmod12'),
        pipeline=val_pipeline))

val_evaluator = dict(
    type='Evaluator', metrics=[
        dict(type='PSNR', crop_border=scale, prefix='Set5'),
        dict(type='SSIM', crop_border=scale, prefix='Set5'),
    ])

train_cfg = dict(
    type='IterBasedTrainLoop', max_iters=1500, val_interval=250)
val_cfg = dict(type='MultiValLoop')

# optimizer
optim_wrapper = dict(
    constructor='DefaultOptimWrapperConstructor',
    type='OptimWrapper',
    optimizer=dict(type='Adam', lr=1e-6, betas=(0.9, 0.999)))

# learning policy
param_scheduler = dict(
    type='MultiStepLR', by_epoch=False, milestones=[1000], gamma=0.5)

default_hooks = dict(
    logger=dict(type='LoggerHook', interval=50),
    checkpoint=dict(
        type='CheckpointHook',
        interval=500,
        save_optimizer=True,
        by_epoch=False,
        out_dir=save_dir,
    ))
'''

RUN04_SCRIPT = HIDDEN_SR_COMMON + EDSR_CODE + r'''
import datetime, json
cfg_text = open('edsr_x2c24b3_g1_1500i_synthdiv2k.py').read()
ns = {}
exec(cfg_text.replace("_base_ = '../_base_/default_runtime.py'", ''), ns)
torch.manual_seed(0); rng = np.random.default_rng(0)
train_gt = torch.tensor(np.stack([synth_image(rng, 48, 48) for _ in range(64)]))
train_lq = F.avg_pool2d(train_gt, 2)
vr = np.random.default_rng(2024)
val_gt = torch.tensor(np.stack([synth_image(vr, 32, 32) for _ in range(5)])); val_lq = F.avg_pool2d(val_gt, 2)

ts = time.strftime('%Y%m%d_%H%M%S')
os.makedirs(f'{ts}/vis_data', exist_ok=True)
logf = open(f'{ts}/{ts}.log', 'w')
scal = open(f'{ts}/vis_data/scalars.json', 'w')
open(f'{ts}/vis_data/config.py', 'w').write(cfg_text)

def log(msg):
    line = f"{datetime.datetime.now():%Y/%m/%d %H:%M:%S} - mmengine - INFO - {msg}"
    print(line); logf.write(line + '\n'); logf.flush()

log(f"""
------------------------------------------------------------
System environment:
    sys.platform: linux
    Python: 3.10.13 (main, Sep 11 2023, 13:44:35) [GCC 11.2.0]
    CUDA available: True
    numpy_random_seed: 0
    GPU 0: NVIDIA GeForce RTX 3090
    CUDA_HOME: /usr/local/cuda
    NVCC: Cuda compilation tools, release 12.1, V12.1.105
    PyTorch: 2.1.2
    TorchVision: 0.16.2
    OpenCV: 4.9.0
    MMEngine: 0.10.3

Runtime environment:
    cudnn_benchmark: False
    mp_cfg: {{'mp_start_method': 'fork', 'opencv_num_threads': 0}}
    dist_cfg: {{'backend': 'nccl'}}
    seed: 0
    Distributed launcher: none
    Distributed training: False
    GPU number: 1
------------------------------------------------------------
""")
log('Config:\n' + cfg_text)
log('Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be automatically reverted to BatchNormXd layers if they are used.')
log('Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) RuntimeInfoHook\n(BELOW_NORMAL) LoggerHook\n --------------------\nafter_train_iter:\n(VERY_HIGH   ) RuntimeInfoHook\n(NORMAL      ) IterTimerHook\n(BELOW_NORMAL) LoggerHook\n(LOW         ) ParamSchedulerHook\n(VERY_LOW    ) CheckpointHook\n --------------------')
g = ns['model']['generator']
net = EDSRNet(g['in_channels'], g['out_channels'], g['mid_channels'], g['num_blocks'], g['upscale_factor'], g['res_scale'], g['rgb_mean'], g['rgb_std'])
o = ns['optim_wrapper']['optimizer']
optim = torch.optim.Adam(net.parameters(), lr=o['lr'], betas=o['betas'])
ps = ns['param_scheduler']
sched = torch.optim.lr_scheduler.MultiStepLR(optim, ps['milestones'], ps['gamma'])
base_lr = o['lr']
max_iters = ns['train_cfg']['max_iters']; val_interval = ns['train_cfg']['val_interval']
interval = ns['default_hooks']['logger']['interval']; ck_int = ns['default_hooks']['checkpoint']['interval']
bs = ns['train_dataloader']['batch_size']
exp = ns['experiment_name']
log(f'Checkpoints will be saved to {ns["work_dir"]}.')
buf = {'loss': [], 'loss_pix': [], 'time': [], 'data_time': []}
t_start = time.time(); t_prev = time.time()
for it in range(1, max_iters + 1):
    td = time.time()
    idx = rng.integers(0, 64, bs); ys = rng.integers(0, 17, bs); xs = rng.integers(0, 17, bs)
    gt = torch.stack([train_gt[i, :, 2 * y:2 * y + 16, 2 * x:2 * x + 16] for i, y, x in zip(idx, ys, xs)])
    lq = torch.stack([train_lq[i, :, y:y + 8, x:x + 8] for i, y, x in zip(idx, ys, xs)])
    if rng.random() < 0.5: gt, lq = gt.flip(-1), lq.flip(-1)
    if rng.random() < 0.5: gt, lq = gt.flip(-2), lq.flip(-2)
    if rng.random() < 0.5: gt, lq = gt.transpose(-1, -2), lq.transpose(-1, -2)
    data_time = time.time() - td
    out = net(lq)
    loss_pix = F.l1_loss(out, gt)
    optim.zero_grad(); loss_pix.backward(); optim.step()
    lr_now = optim.param_groups[0]['lr']
    sched.step()
    now = time.time(); it_time = now - t_prev; t_prev = now
    for k, v in (('loss', loss_pix.item()), ('loss_pix', loss_pix.item()), ('time', it_time), ('data_time', data_time)):
        buf[k].append(v)
    if it % interval == 0:
        w = {k: float(np.mean(v[-10:])) for k, v in buf.items()}
        eta = str(datetime.timedelta(seconds=int((now - t_start) / it * (max_iters - it))))
        log(f"Iter(train) [{it:>4d}/{max_iters}]  base_lr: {base_lr:.4e} lr: {lr_now:.4e}  eta: {eta}  time: {w['time']:.4f}  data_time: {w['data_time']:.4f}  loss: {w['loss']:.4f}  loss_pix: {w['loss_pix']:.4f}")
        scal.write(json.dumps({'base_lr': base_lr, 'lr': lr_now, 'data_time': w['data_time'], 'loss': w['loss'], 'loss_pix': w['loss_pix'], 'time': w['time'], 'iter': it, 'step': it}) + '\n'); scal.flush()
        buf = {k: [] for k in buf}
    if it % 1000 == 0:
        log(f'Exp name: {exp}_{ts}')
    if it % ck_int == 0:
        log(f'Saving checkpoint at {it} iterations')
        torch.save({'meta': {'iter': it}, 'state_dict': {'generator.' + k: v for k, v in net.state_dict().items()}}, f'iter_{it}.pth')
        open('last_checkpoint', 'w').write(f'{ns["work_dir"]}/iter_{it}.pth')
    if it % val_interval == 0:
        tv = time.time()
        net.eval(); ps_, ss_ = [], []; dts = []
        with torch.no_grad():
            for i in range(len(val_gt)):
                td = time.time(); lq_i, gt_i = val_lq[i:i + 1].clone(), val_gt[i:i + 1].clone(); dts.append(time.time() - td)
                sr = tensor2img(net(lq_i)); hr = tensor2img(gt_i)
                ps_.append(calculate_psnr(sr, hr, 2)); ss_.append(calculate_ssim(sr, hr, 2))
        net.train()
        vt = (time.time() - tv) / len(val_gt); vdt = float(np.mean(dts))
        log(f"Iter(val) [{len(val_gt)}/{len(val_gt)}]    Set5/PSNR: {np.mean(ps_):.4f}  Set5/SSIM: {np.mean(ss_):.4f}  data_time: {vdt:.4f}  time: {vt:.4f}")
        scal.write(json.dumps({'Set5/PSNR': float(np.mean(ps_)), 'Set5/SSIM': float(np.mean(ss_)), 'data_time': vdt, 'time': vt, 'step': it}) + '\n'); scal.flush()
        t_prev = time.time()
'''


# ======================================================================================
# run11: mmediting 0.x, EDSR x2; the test pipeline normalises lq with mean/std 0.5 while
#        the train pipeline keeps lq in [0,1] -> preprocessing_mismatch  (no train.py)
# ======================================================================================
RUN11_CFG = r'''exp_name = 'edsr_x2c24b3_g1_1k_synthdiv2k'

scale = 2
# model settings
model = dict(
    type='BasicRestorer',
    generator=dict(
        type='EDSR',
        in_channels=3,
        out_channels=3,
        mid_channels=24,
        num_blocks=3,
        upscale_factor=scale,
        res_scale=1,
        rgb_mean=[0.4488, 0.4371, 0.4040],
        rgb_std=[1.0, 1.0, 1.0]),
    pixel_loss=dict(type='L1Loss', loss_weight=1.0, reduction='mean'))
# model training and testing settings
train_cfg = None
test_cfg = dict(metrics=['PSNR', 'SSIM'], crop_border=scale)

# dataset settings
train_dataset_type = 'SRAnnotationDataset'
val_dataset_type = 'SRFolderDataset'
train_pipeline = [
    dict(type='LoadImageFromFile', io_backend='disk', key='lq', flag='unchanged'),
    dict(type='LoadImageFromFile', io_backend='disk', key='gt', flag='unchanged'),
    dict(type='RescaleToZeroOne', keys=['lq', 'gt']),
    dict(type='Normalize', keys=['lq', 'gt'], mean=[0, 0, 0], std=[1, 1, 1], to_rgb=True),
    dict(type='PairedRandomCrop', gt_patch_size=16),
    dict(type='Flip', keys=['lq', 'gt'], flip_ratio=0.5, direction='horizontal'),
    dict(type='Flip', keys=['lq', 'gt'], flip_ratio=0.5, direction='vertical'),
    dict(type='RandomTransposeHW', keys=['lq', 'gt'], transpose_ratio=0.5),
    dict(type='Collect', keys=['lq', 'gt'], meta_keys=['lq_path', 'gt_path']),
    dict(type='ImageToTensor', keys=['lq', 'gt'])
]
test_pipeline = [
    dict(type='LoadImageFromFile', io_backend='disk', key='lq', flag='unchanged'),
    dict(type='LoadImageFromFile', io_backend='disk', key='gt', flag='unchanged'),
    dict(type='RescaleToZeroOne', keys=['lq', 'gt']),
    dict(type='Normalize', keys=['lq'], mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5], to_rgb=True),
    dict(type='Collect', keys=['lq', 'gt'], meta_keys=['lq_path', 'lq_path']),
    dict(type='ImageToTensor', keys=['lq', 'gt'])
]

data = dict(
    workers_per_gpu=4,
    train_dataloader=dict(samples_per_gpu=16, drop_last=True),
    val_dataloader=dict(samples_per_gpu=1),
    test_dataloader=dict(samples_per_gpu=1),
    train=dict(
        type='RepeatDataset',
        times=1000,
        dataset=dict(
            type=train_dataset_type,
            lq_folder='data/synthDIV2K/LR_bicubic/X2_sub',
            gt_folder='data/synthDIV2K/GT_sub',
            ann_file='data/synthDIV2K/meta_info_synthDIV2K_GT.txt',
            pipeline=train_pipeline,
            scale=scale)),
    val=dict(
        type=val_dataset_type,
        lq_folder='data/val_set5/Set5_bicLRx2',
        gt_folder='data/val_set5/Set5_mod12',
        pipeline=test_pipeline,
        scale=scale,
        filename_tmpl='{}'),
    test=dict(
        type=val_dataset_type,
        lq_folder='data/val_set5/Set5_bicLRx2',
        gt_folder='data/val_set5/Set5_mod12',
        pipeline=test_pipeline,
        scale=scale,
        filename_tmpl='{}'))

# optimizer
optimizers = dict(generator=dict(type='Adam', lr=2e-4, betas=(0.9, 0.999)))

# learning policy
total_iters = 1000
lr_config = dict(policy='Step', by_epoch=False, step=[600], gamma=0.5)

checkpoint_config = dict(interval=500, save_optimizer=True, by_epoch=False)
evaluation = dict(interval=100, save_image=False, gpu_collect=True)
log_config = dict(
    interval=50,
    hooks=[dict(type='TextLoggerHook', by_epoch=False),
           dict(type='TensorboardLoggerHook')])
visual_config = None

# runtime settings
dist_params = dict(backend='nccl')
log_level = 'INFO'
work_dir = f'./work_dirs/{exp_name}'
load_from = None
resume_from = None
workflow = [('train', 1)]
'''

RUN11_SCRIPT = HIDDEN_SR_COMMON + EDSR_CODE + r'''
import datetime, json
cfg_text = open('edsr_x2c24b3_g1_1k_synthdiv2k.py').read()
ns = {}
exec(cfg_text, ns)
seed = 0
torch.manual_seed(seed); rng = np.random.default_rng(seed)
train_gt = torch.tensor(np.stack([synth_image(rng, 48, 48) for _ in range(64)]))
train_lq = F.avg_pool2d(train_gt, 2)
vr = np.random.default_rng(2024)
val_gt = torch.tensor(np.stack([synth_image(vr, 32, 32) for _ in range(5)])); val_lq = F.avg_pool2d(val_gt, 2)

def apply_pipeline(pipeline, lq, gt):
    d = {'lq': lq.clone(), 'gt': gt.clone()}
    for step in pipeline:
        if step['type'] == 'Normalize':
            m = torch.tensor(step['mean'], dtype=torch.float32).view(3, 1, 1); s = torch.tensor(step['std'], dtype=torch.float32).view(3, 1, 1)
            for k in step['keys']:
                d[k] = (d[k] - m) / s
    return d['lq'], d['gt']

ts = time.strftime('%Y%m%d_%H%M%S')
logf = open(f'{ts}.log', 'w'); jlog = open(f'{ts}.log.json', 'w')

def log(msg):
    line = f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S},{int(time.time() * 1000) % 1000:03d} - mmedit - INFO - {msg}"
    print(line); logf.write(line + '\n'); logf.flush()

env = """sys.platform: linux
Python: 3.8.13 (default, Mar 28 2022, 11:38:47) [GCC 7.5.0]
CUDA available: True
GPU 0: NVIDIA GeForce RTX 2080 Ti
CUDA_HOME: /usr/local/cuda
NVCC: Build cuda_11.3.r11.3/compiler.29920130_0
GCC: gcc (Ubuntu 9.4.0-1ubuntu1~20.04.1) 9.4.0
PyTorch: 1.10.1
TorchVision: 0.11.2
OpenCV: 4.6.0
MMCV: 1.6.2
MMCV Compiler: GCC 9.3
MMCV CUDA Compiler: 11.3
MMEditing: 0.16.1+"""
log('Environment info:\n------------------------------------------------------------\n' + env + '\n------------------------------------------------------------\n')
log('Distributed training: False')
log('mmedit Version: 0.16.1')
log('Config:\n' + cfg_text)
jlog.write(json.dumps({'exp_name': ns['exp_name'] + '.py', 'mmedit Version': '0.16.1', 'seed': seed}) + '\n')
g = ns['model']['generator']
net = EDSRNet(g['in_channels'], g['out_channels'], g['mid_channels'], g['num_blocks'], g['upscale_factor'], g['res_scale'], g['rgb_mean'], g['rgb_std'])
o = ns['optimizers']['generator']
optim = torch.optim.Adam(net.parameters(), lr=o['lr'], betas=o['betas'])
lc = ns['lr_config']
sched = torch.optim.lr_scheduler.MultiStepLR(optim, lc['step'], lc['gamma'])
total = ns['total_iters']; interval = ns['log_config']['interval']; ev = ns['evaluation']['interval']; ck = ns['checkpoint_config']['interval']
bs = ns['data']['train_dataloader']['samples_per_gpu']
log(f"Start running, host: user@workstation, work_dir: {ns['work_dir']}")
log('Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) StepLrUpdaterHook\n(NORMAL      ) CheckpointHook\n(VERY_LOW    ) TextLoggerHook\n(VERY_LOW    ) TensorboardLoggerHook\n --------------------\nafter_train_iter:\n(ABOVE_NORMAL) OptimizerHook\n(NORMAL      ) CheckpointHook\n(LOW         ) IterTimerHook\n(LOW         ) EvalIterHook\n(VERY_LOW    ) TextLoggerHook\n(VERY_LOW    ) TensorboardLoggerHook\n --------------------')
log(f"workflow: [('train', 1)], max: {total} iters")
log(f"Checkpoints will be saved to {ns['work_dir']} by HardDiskBackend.")
buf = {'loss_pix': [], 'time': [], 'data_time': []}
t_start = time.time(); t_prev = time.time()
for it in range(1, total + 1):
    td = time.time()
    idx = rng.integers(0, 64, bs); ys = rng.integers(0, 17, bs); xs = rng.integers(0, 17, bs)
    gt = torch.stack([train_gt[i, :, 2 * y:2 * y + 16, 2 * x:2 * x + 16] for i, y, x in zip(idx, ys, xs)])
    lq = torch.stack([train_lq[i, :, y:y + 8, x:x + 8] for i, y, x in zip(idx, ys, xs)])
    lq, gt = apply_pipeline(ns['train_pipeline'], lq, gt)
    if rng.random() < 0.5: gt, lq = gt.flip(-1), lq.flip(-1)
    if rng.random() < 0.5: gt, lq = gt.flip(-2), lq.flip(-2)
    if rng.random() < 0.5: gt, lq = gt.transpose(-1, -2), lq.transpose(-1, -2)
    data_time = time.time() - td
    out = net(lq)
    loss_pix = F.l1_loss(out, gt)
    optim.zero_grad(); loss_pix.backward(); optim.step()
    lr_now = optim.param_groups[0]['lr']
    sched.step()
    now = time.time(); buf['time'].append(now - t_prev); t_prev = now
    buf['loss_pix'].append(loss_pix.item()); buf['data_time'].append(data_time)
    if it % interval == 0:
        w = {k: float(np.mean(v)) for k, v in buf.items()}
        eta = str(datetime.timedelta(seconds=int((now - t_start) / it * (total - it))))
        log(f"Iter [{it}/{total}]\tlr_generator: {lr_now:.3e}, eta: {eta}, time: {w['time']:.3f}, data_time: {w['data_time']:.3f}, loss_pix: {w['loss_pix']:.4f}, loss: {w['loss_pix']:.4f}")
        jlog.write(json.dumps({'mode': 'train', 'epoch': 1, 'iter': it, 'lr_generator': lr_now, 'time': round(w['time'], 5), 'data_time': round(w['data_time'], 5), 'loss_pix': round(w['loss_pix'], 5), 'loss': round(w['loss_pix'], 5)}) + '\n'); jlog.flush()
        buf = {k: [] for k in buf}
    if it % ck == 0:
        log(f'Saving checkpoint at {it} iterations')
        torch.save({'meta': {'iter': it}, 'state_dict': {'generator.' + k: v for k, v in net.state_dict().items()}}, f'iter_{it}.pth')
    if it % ev == 0:
        net.eval(); ps_, ss_ = [], []
        with torch.no_grad():
            for i in range(len(val_gt)):
                lq_v, gt_v = apply_pipeline(ns['test_pipeline'], val_lq[i], val_gt[i])
                sr = tensor2img(net(lq_v[None])); hr = tensor2img(gt_v[None])
                ps_.append(calculate_psnr(sr, hr, ns['scale'])); ss_.append(calculate_ssim(sr, hr, ns['scale']))
        net.train()
        log(f"Iter(val) [{len(val_gt)}]\tPSNR: {np.mean(ps_):.4f}, SSIM: {np.mean(ss_):.4f}")
        jlog.write(json.dumps({'mode': 'val', 'epoch': 1, 'iter': it, 'lr': lr_now, 'PSNR': round(float(np.mean(ps_)), 4), 'SSIM': round(float(np.mean(ss_)), 4)}) + '\n'); jlog.flush()
        t_prev = time.time()
'''


# ======================================================================================
# run05: user script, DnCNN-style denoiser; StepLR configured in epochs but stepped every
#        iteration -> lr collapses within the first epochs  (train.py shipped)
# ======================================================================================
RUN05_YML = r'''name: dncnn_color_s25_small
seed: 123

data:
  num_train_patches: 400
  patch_size: 16
  sigma: 25
  num_val_images: 8
  val_size: 32

network:
  type: DnCNN
  in_nc: 3
  nc: 32
  depth: 6

train:
  epochs: 40
  batch_size: 16
  optimizer: Adam
  lr: !!float 1e-3
  betas: [0.9, 0.999]
  scheduler: StepLR
  lr_step: 10       # halve the lr every 10 epochs
  lr_gamma: 0.5
  loss: l1

log:
  print_freq: 25
  val_every_epochs: 2
'''

RUN05_TRAIN = r'''import math
import os
import sys
import time
import datetime
import logging

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
''' + SYN + r'''

class DnCNN(nn.Module):
    def __init__(self, in_nc=3, nc=64, depth=17):
        super().__init__()
        layers = [nn.Conv2d(in_nc, nc, 3, padding=1), nn.ReLU(inplace=True)]
        for _ in range(depth - 2):
            layers += [nn.Conv2d(nc, nc, 3, padding=1), nn.ReLU(inplace=True)]
        layers += [nn.Conv2d(nc, in_nc, 3, padding=1)]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return x - self.model(x)


def psnr(a, b):
    mse = F.mse_loss(a.clamp(0, 1), b).item()
    return 10 * math.log10(1.0 / mse)


def main():
    opt = yaml.safe_load(open("options/denoise_dncnn_s25.yml"))
    torch.manual_seed(opt["seed"])
    rng = np.random.default_rng(opt["seed"])

    logger = logging.getLogger("train")
    logger.setLevel(logging.INFO)
    fh = logging.FileHandler(f"train_{opt['name']}_{time.strftime('%Y%m%d_%H%M%S')}.log")
    fh.setFormatter(logging.Formatter("%(asctime)s INFO: %(message)s"))
    logger.addHandler(fh)
    logger.addHandler(logging.StreamHandler(sys.stdout))

    d = opt["data"]
    # training patches cut from procedurally generated test cards
    cards = [synth_image(rng, 48, 48) for _ in range(50)]
    patches = []
    for i in range(d["num_train_patches"]):
        c = cards[i % len(cards)]
        y, x = rng.integers(0, 48 - d["patch_size"] + 1, 2)
        patches.append(c[:, y:y + d["patch_size"], x:x + d["patch_size"]])
    train_clean = torch.tensor(np.stack(patches))
    vrng = np.random.default_rng(999)
    val_clean = torch.tensor(np.stack([synth_image(vrng, d["val_size"], d["val_size"]) for _ in range(d["num_val_images"])]))
    g = torch.Generator().manual_seed(999)
    val_noisy = val_clean + torch.randn(val_clean.shape, generator=g) * d["sigma"] / 255.0

    n = opt["network"]
    model = DnCNN(n["in_nc"], n["nc"], n["depth"])
    t = opt["train"]
    optimizer = torch.optim.Adam(model.parameters(), lr=t["lr"], betas=tuple(t["betas"]))
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=t["lr_step"], gamma=t["lr_gamma"])

    iters_per_epoch = len(train_clean) // t["batch_size"]
    logger.info(f"train patches: {len(train_clean)}, val images: {len(val_clean)}, iters/epoch: {iters_per_epoch}, epochs: {t['epochs']}")
    logger.info(f"params: {sum(p.numel() for p in model.parameters()):,d}")
    current_iter = 0
    start = time.time()
    for epoch in range(t["epochs"]):
        perm = torch.randperm(len(train_clean))
        for b in range(iters_per_epoch):
            t0 = time.time()
            clean = train_clean[perm[b * t["batch_size"]:(b + 1) * t["batch_size"]]]
            noisy = clean + torch.randn_like(clean) * d["sigma"] / 255.0
            out = model(noisy)
            loss = F.l1_loss(out, clean)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            current_iter += 1
            if current_iter % opt["log"]["print_freq"] == 0:
                elapsed = time.time() - start
                eta = elapsed / current_iter * (t["epochs"] * iters_per_epoch - current_iter)
                lr = optimizer.param_groups[0]["lr"]
                logger.info(f"[epoch:{epoch:3d}, iter:{current_iter:8,d}, lr:({lr:.3e},)] "
                            f"[eta: {datetime.timedelta(seconds=int(eta))}, time: {time.time() - t0:.3f}] l_pix: {loss.item():.4e}")
        if (epoch + 1) % opt["log"]["val_every_epochs"] == 0:
            model.eval()
            with torch.no_grad():
                scores = [psnr(model(val_noisy[i:i + 1]), val_clean[i:i + 1]) for i in range(len(val_clean))]
                noisy_ref = [psnr(val_noisy[i:i + 1], val_clean[i:i + 1]) for i in range(len(val_clean))]
            model.train()
            logger.info(f"Validation epoch {epoch + 1}: psnr: {np.mean(scores):.4f} (noisy input: {np.mean(noisy_ref):.4f})")
    torch.save(model.state_dict(), f"{opt['name']}_final.pth")
    logger.info("done.")


if __name__ == "__main__":
    main()
'''


# ======================================================================================
# run08: user script, KAIR-style log; images kept in 0..255 while the net ends in a
#        sigmoid -> unnormalized_inputs  (train.py shipped)
# ======================================================================================
RUN08_JSON = r'''{
  "task": "denoise_color_s25",
  "n_channels": 3,
  "sigma": 25,
  "datasets": {
    "train": {"dataroot_H": "trainsets/cards_png", "H_size": 16, "dataloader_batch_size": 16, "num_images": 400},
    "test": {"dataroot_H": "testsets/cards8"}
  },
  "netG": {"net_type": "plain_cnn", "in_nc": 3, "out_nc": 3, "nc": 32, "nb": 5},
  "train": {
    "G_lossfn_type": "l1",
    "G_optimizer_lr": 1e-3,
    "epochs": 8,
    "checkpoint_print": 10,
    "checkpoint_test_epochs": 1
  }
}
'''

RUN08_TRAIN = r'''import json
import logging
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
''' + SYN + r'''

def write_cards(rng, n, size):
    """stand-in for the trainsets/cards_png folder (HWC, 8-bit, as written by cv2.imwrite)"""
    return [(synth_image(rng, size, size).transpose(1, 2, 0) * 255).round().astype(np.uint8) for _ in range(n)]


def imread_uint(img_uint8):
    return img_uint8


def uint2tensor3(img):
    return torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).float()


class PlainCNN(nn.Module):
    def __init__(self, in_nc=3, out_nc=3, nc=64, nb=5):
        super().__init__()
        layers = [nn.Conv2d(in_nc, nc, 3, 1, 1), nn.ReLU(inplace=True)]
        for _ in range(nb - 2):
            layers += [nn.Conv2d(nc, nc, 3, 1, 1), nn.ReLU(inplace=True)]
        layers += [nn.Conv2d(nc, out_nc, 3, 1, 1)]
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return torch.sigmoid(self.body(x))


def calculate_psnr(img1, img2):
    img1 = img1.astype(np.float64); img2 = img2.astype(np.float64)
    mse = np.mean((img1 - img2) ** 2)
    if mse == 0:
        return float("inf")
    return 20 * math.log10(255.0 / math.sqrt(mse))


def main():
    opt = json.load(open("options/train_denoise_s25.json"))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s.%(msecs)03d : %(message)s", datefmt="%y-%m-%d %H:%M:%S",
                        handlers=[logging.FileHandler("train.log", mode="w"), logging.StreamHandler(sys.stdout)])
    logger = logging.getLogger()
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tr, te = opt["datasets"]["train"], opt["datasets"]["test"]
    train_imgs = write_cards(rng, tr["num_images"], 48)
    test_imgs = write_cards(np.random.default_rng(77), 8, 32)
    g = torch.Generator().manual_seed(77)
    test_L = [uint2tensor3(imread_uint(im)) + torch.randn(3, 32, 32, generator=g) * opt["sigma"] for im in test_imgs]
    test_H = [uint2tensor3(imread_uint(im)) for im in test_imgs]

    n = opt["netG"]
    netG = PlainCNN(n["in_nc"], n["out_nc"], n["nc"], n["nb"])
    optimizer = torch.optim.Adam(netG.parameters(), lr=opt["train"]["G_optimizer_lr"])
    bs, ps = tr["dataloader_batch_size"], tr["H_size"]
    iters_per_epoch = len(train_imgs) // bs
    logger.info("Number of train images: {:,d}, iters: {:,d}".format(len(train_imgs), iters_per_epoch))
    logger.info("Params number: {}".format(sum(p.numel() for p in netG.parameters())))
    current_step = 0
    for epoch in range(opt["train"]["epochs"]):
        order = rng.permutation(len(train_imgs))
        for b in range(iters_per_epoch):
            batch = []
            for i in order[b * bs:(b + 1) * bs]:
                y, x = rng.integers(0, 48 - ps + 1, 2)
                batch.append(uint2tensor3(imread_uint(train_imgs[i]))[:, y:y + ps, x:x + ps])
            H = torch.stack(batch)
            L = H + torch.randn_like(H) * opt["sigma"]
            current_step += 1
            optimizer.zero_grad()
            E = netG(L)
            G_loss = F.l1_loss(E, H)
            G_loss.backward()
            optimizer.step()
            if current_step % opt["train"]["checkpoint_print"] == 0:
                logger.info("<epoch:{:3d}, iter:{:8,d}, lr:{:.3e}> G_loss: {:.3e} ".format(
                    epoch, current_step, optimizer.param_groups[0]["lr"], G_loss.item()))
        if (epoch + 1) % opt["train"]["checkpoint_test_epochs"] == 0:
            netG.eval()
            avg = 0.0
            with torch.no_grad():
                for idx, (l, h) in enumerate(zip(test_L, test_H)):
                    e = netG(l[None])[0]
                    E_img = e.clamp(0, 255).round().permute(1, 2, 0).numpy()
                    H_img = h.permute(1, 2, 0).numpy()
                    p = calculate_psnr(E_img, H_img)
                    logger.info("{:->4d}--> {:>10s} | {:<4.2f}dB".format(idx + 1, "card_%02d.png" % (idx + 1), p))
                    avg += p
            netG.train()
            logger.info("<epoch:{:3d}, iter:{:8,d}, Average PSNR : {:<.2f}dB\n".format(epoch, current_step, avg / len(test_H)))
    torch.save(netG.state_dict(), "{}_G.pth".format(current_step))
    logger.info("Saving the final model.")


if __name__ == "__main__":
    main()
'''


# ======================================================================================
# run10: user script, KAIR-style log; DnCNN with BN + Dropout2d, validation never calls
#        model.eval() -> eval_mode_forgotten  (train.py shipped)
# ======================================================================================
RUN10_TRAIN = r'''import logging
import math
import os
import sys
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
''' + SYN + r'''

OPT = {
    "task": "dncnn_bn_color_s25",
    "sigma": 25,
    "H_size": 16,
    "batch_size": 16,
    "nc": 32,
    "nb": 6,
    "dropout": 0.1,
    "lr": 1e-3,
    "milestones": [700],
    "iters": 1000,
    "checkpoint_print": 20,
    "checkpoint_test": 100,
}


class DnCNN(nn.Module):
    """DnCNN with BatchNorm (KAIR mode 'BR') plus a bit of spatial dropout"""
    def __init__(self, in_nc=3, nc=64, nb=17, p=0.1):
        super().__init__()
        layers = [nn.Conv2d(in_nc, nc, 3, 1, 1), nn.ReLU(inplace=True)]
        for _ in range(nb - 2):
            layers += [nn.Conv2d(nc, nc, 3, 1, 1, bias=False), nn.BatchNorm2d(nc, momentum=0.9, eps=1e-4),
                       nn.ReLU(inplace=True), nn.Dropout2d(p)]
        layers += [nn.Conv2d(nc, in_nc, 3, 1, 1)]
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return x - self.model(x)


def calculate_psnr(img1, img2, border=0):
    img1 = img1.astype(np.float64); img2 = img2.astype(np.float64)
    mse = np.mean((img1 - img2) ** 2)
    if mse == 0:
        return float("inf")
    return 20 * math.log10(255.0 / math.sqrt(mse))


def tensor2uint(t):
    return (t.squeeze(0).clamp(0, 1).permute(1, 2, 0).numpy() * 255.0).round().astype(np.uint8)


def test(model, test_L, test_H, logger, tag):
    avg = 0.0
    with torch.no_grad():
        for idx, (L, H) in enumerate(zip(test_L, test_H)):
            E = model(L[None])
            p = calculate_psnr(tensor2uint(E), tensor2uint(H[None]))
            logger.info("{:->4d}--> {:>12s} | {:<4.2f}dB".format(idx + 1, "img_%03d.png" % (idx + 1), p))
            avg += p
    return avg / len(test_H)


def main():
    opt = OPT
    logging.basicConfig(level=logging.INFO, format="%(asctime)s.%(msecs)03d : %(message)s", datefmt="%y-%m-%d %H:%M:%S",
                        handlers=[logging.FileHandler("train.log", mode="w"), logging.StreamHandler(sys.stdout)])
    logger = logging.getLogger()
    for k, v in opt.items():
        logger.info("  {}: {}".format(k, v))
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    train_H = torch.tensor(np.stack([synth_image(rng, 48, 48) for _ in range(64)]))
    trng = np.random.default_rng(5)
    test_H = torch.tensor(np.stack([synth_image(trng, 32, 32) for _ in range(8)]))
    g = torch.Generator().manual_seed(5)
    test_L = test_H + torch.randn(test_H.shape, generator=g) * opt["sigma"] / 255.0

    model = DnCNN(3, opt["nc"], opt["nb"], opt["dropout"])
    logger.info("Params number: {}".format(sum(p.numel() for p in model.parameters())))
    optimizer = torch.optim.Adam(model.parameters(), lr=opt["lr"])
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, opt["milestones"], 0.5)
    bs, ps = opt["batch_size"], opt["H_size"]
    iters_per_epoch = math.ceil(len(train_H) / bs)
    best_psnr, best_step = -1, -1
    os.makedirs("models", exist_ok=True)
    for step in range(1, opt["iters"] + 1):
        epoch = (step - 1) // iters_per_epoch
        idx = rng.integers(0, len(train_H), bs)
        ys = rng.integers(0, 48 - ps + 1, bs); xs = rng.integers(0, 48 - ps + 1, bs)
        H = torch.stack([train_H[i, :, y:y + ps, x:x + ps] for i, y, x in zip(idx, ys, xs)])
        L = H + torch.randn_like(H) * opt["sigma"] / 255.0
        optimizer.zero_grad()
        E = model(L)
        G_loss = F.l1_loss(E, H)
        G_loss.backward()
        optimizer.step()
        scheduler.step()
        if step % opt["checkpoint_print"] == 0:
            logger.info("<epoch:{:3d}, iter:{:8,d}, lr:{:.3e}> G_loss: {:.3e} ".format(epoch, step, optimizer.param_groups[0]["lr"], G_loss.item()))
        if step % opt["checkpoint_test"] == 0:
            avg_psnr = test(model, test_L, test_H, logger, "val")
            logger.info("<epoch:{:3d}, iter:{:8,d}, Average PSNR : {:<.2f}dB\n".format(epoch, step, avg_psnr))
            if avg_psnr > best_psnr:
                best_psnr, best_step = avg_psnr, step
                torch.save(model.state_dict(), "models/best_G.pth")
                logger.info("Saving the model (best so far).")
    logger.info("Best: {:.2f}dB @ iter {:,d}".format(best_psnr, best_step))
    final = DnCNN(3, opt["nc"], opt["nb"], opt["dropout"])
    final.load_state_dict(torch.load("models/best_G.pth"))
    logger.info("Re-testing models/best_G.pth (iter {:,d}) on the same images:".format(best_step))
    avg_psnr = test(final, test_L, test_H, logger, "retest")
    logger.info("Average PSNR (best_G.pth): {:<.2f}dB".format(avg_psnr))


if __name__ == "__main__":
    main()
'''


# ======================================================================================
# run12: user script, bias-free SR net trained with a PSNR loss log(mse) without any
#        epsilon; a letterboxed (black-bar) frame gives an all-black patch, the bias-free
#        net maps it to exactly 0, mse == 0, log(0) = -inf and the weights go NaN
#        -> numerical_instability  (train.py shipped)
# ======================================================================================
RUN12_YML = r'''name: bfsr_x2_psnrloss_frames
manual_seed: SEEDVALUE

datasets:
  train:
    name: movie_frames
    num_frames: 96
    frame_hw: [64, 48]
    gt_size: 16
    batch_size: 8
  val:
    name: frames_val
    num_frames: 6

network_g:
  type: BiasFreeSRNet
  num_feat: 24
  num_block: 3
  upscale: 2

train:
  optim_g:
    type: AdamW
    lr: !!float 3e-4
    weight_decay: !!float 1e-4
    betas: [0.9, 0.99]
  total_iter: 800
  pixel_opt:
    type: PSNRLoss
    loss_weight: 0.5

val:
  val_freq: 100

logger:
  print_freq: 20
'''

RUN12_TRAIN = r'''import datetime
import logging
import math
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
''' + SYN + r'''

class PSNRLoss(nn.Module):
    """NAFNet-style PSNR loss (returns -PSNR scaled by loss_weight)"""
    def __init__(self, loss_weight=1.0):
        super().__init__()
        self.loss_weight = loss_weight
        self.scale = 10 / math.log(10)

    def forward(self, pred, target):
        mse = ((pred - target) ** 2).mean(dim=(1, 2, 3))
        return self.loss_weight * self.scale * torch.log(mse).mean()


class BiasFreeResBlock(nn.Module):
    def __init__(self, nf):
        super().__init__()
        self.conv1 = nn.Conv2d(nf, nf, 3, 1, 1, bias=False)
        self.conv2 = nn.Conv2d(nf, nf, 3, 1, 1, bias=False)

    def forward(self, x):
        return x + self.conv2(F.relu(self.conv1(x)))


class BiasFreeSRNet(nn.Module):
    """bias-free conv net (scales with the input, generalises across intensities)"""
    def __init__(self, num_feat=64, num_block=8, upscale=2):
        super().__init__()
        self.upscale = upscale
        self.head = nn.Conv2d(3, num_feat, 3, 1, 1, bias=False)
        self.body = nn.Sequential(*[BiasFreeResBlock(num_feat) for _ in range(num_block)])
        self.up = nn.Sequential(nn.Conv2d(num_feat, 3 * upscale * upscale, 3, 1, 1, bias=False), nn.PixelShuffle(upscale))

    def forward(self, x):
        base = F.interpolate(x, scale_factor=self.upscale, mode="bilinear", align_corners=False)
        return base + self.up(self.body(self.head(x)))


def make_frames(rng, n, h, w):
    frames = []
    for i in range(n):
        f = synth_image(rng, h, w)
        if rng.random() < 0.02:          # some shots are letterboxed
            f[:, :16] = 0.0
            f[:, -16:] = 0.0
        frames.append(f)
    return torch.tensor(np.stack(frames))


def calc_psnr(sr, hr):
    mse = F.mse_loss(sr.clamp(0, 1), hr).item()
    return 10 * math.log10(1.0 / mse)


def main():
    opt = yaml.safe_load(open("options/train_bfsr_x2.yml"))
    seed = opt["manual_seed"]
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    logger = logging.getLogger("bfsr")
    logger.setLevel(logging.INFO)
    for h in (logging.FileHandler(f"train_{opt['name']}_{time.strftime('%Y%m%d_%H%M%S')}.log"), logging.StreamHandler(sys.stdout)):
        h.setFormatter(logging.Formatter("%(asctime)s INFO: %(message)s"))
        logger.addHandler(h)

    dt, dv = opt["datasets"]["train"], opt["datasets"]["val"]
    fh, fw = dt["frame_hw"]
    frames = make_frames(rng, dt["num_frames"], fh, fw)
    vrng = np.random.default_rng(4242)
    val_hr = torch.tensor(np.stack([synth_image(vrng, 32, 32) for _ in range(dv["num_frames"])]))
    val_lr = F.avg_pool2d(val_hr, 2)

    n = opt["network_g"]
    net = BiasFreeSRNet(n["num_feat"], n["num_block"], n["upscale"])
    o = opt["train"]["optim_g"]
    optim = torch.optim.AdamW(net.parameters(), lr=o["lr"], weight_decay=o["weight_decay"], betas=tuple(o["betas"]))
    crit = PSNRLoss(opt["train"]["pixel_opt"]["loss_weight"])
    logger.info(f"frames: {len(frames)} ({fh}x{fw}), params: {sum(p.numel() for p in net.parameters()):,d}")
    total = opt["train"]["total_iter"]
    gs, bs = dt["gt_size"], dt["batch_size"]
    start = time.time()
    for it in range(1, total + 1):
        t0 = time.time()
        idx = rng.integers(0, len(frames), bs)
        ys = rng.integers(0, (fh - gs) // 2 + 1, bs) * 2
        xs = rng.integers(0, (fw - gs) // 2 + 1, bs) * 2
        hr = torch.stack([frames[i, :, y:y + gs, x:x + gs] for i, y, x in zip(idx, ys, xs)])
        lr = F.avg_pool2d(hr, 2)
        sr = net(lr)
        l_psnr = crit(sr, hr)
        optim.zero_grad()
        l_psnr.backward()
        optim.step()
        if it % opt["logger"]["print_freq"] == 0:
            eta = (time.time() - start) / it * (total - it)
            logger.info(f"[bfsr_..][epoch:{(it - 1) // 12:3d}, iter:{it:8,d}, lr:({optim.param_groups[0]['lr']:.3e},)] "
                        f"[eta: {datetime.timedelta(seconds=int(eta))}, time (data): {time.time() - t0:.3f} (0.001)] l_psnr: {l_psnr.item():.4e} ")
        if it % opt["val"]["val_freq"] == 0:
            net.eval()
            with torch.no_grad():
                p = np.mean([calc_psnr(net(val_lr[i:i + 1]), val_hr[i:i + 1]) for i in range(len(val_hr))])
            net.train()
            logger.info(f"Validation {dv['name']}\n\t # psnr: {p:.4f}")
    torch.save({"params": net.state_dict()}, "net_g_latest.pth")
    logger.info("End of training.")


if __name__ == "__main__":
    main()
'''


# ======================================================================================
# run12 seed: choose the first seed whose first all-black training patch comes late
# enough that the log shows several hundred normal iterations before the NaN.
# ======================================================================================
def pick_run12_seed(lo=300, hi=550, total=800):
    """replays the numpy RNG stream of run12/train.py (frames, then crops) and returns the
    first seed whose first all-black 16x16 training crop is drawn between lo and hi."""
    import numpy as np
    ns = {'np': np}
    exec(SYN, ns)
    synth_image = ns['synth_image']
    for seed in range(1000):
        rng = np.random.default_rng(seed)
        frames, boxed = [], []
        for i in range(96):
            f = synth_image(rng, 64, 48)
            b = rng.random() < 0.02
            if b:
                f[:, :16] = 0.0
                f[:, -16:] = 0.0
            frames.append(f); boxed.append(b)
        first = None
        for it in range(1, total + 1):
            idx = rng.integers(0, 96, 8)
            ys = rng.integers(0, (64 - 16) // 2 + 1, 8) * 2
            xs = rng.integers(0, (48 - 16) // 2 + 1, 8) * 2
            for i, y, x in zip(idx, ys, xs):
                if frames[i][:, y:y + 16, x:x + 16].max() == 0:
                    first = (it, int(i), bool(boxed[i]))
                    break
            if first:
                break
        if first is not None and lo <= first[0] <= hi:
            return seed, first
    raise RuntimeError('no seed found')


# ======================================================================================
# run table
# ======================================================================================
def specs():
    seed12, first12 = pick_run12_seed()
    return [
        dict(name='run01', ship=False, script=HIDDEN_BASICSR,
             files={'train_MSRResNet_x2.yml': RUN01_YML},
             cmds=[['train', 'train_MSRResNet_x2.yml']],
             truth='healthy',
             symptom="My small x2 MSRResNet run on BasicSR: the l_pix numbers jump around a lot from print to print and Set5 PSNR only creeps up by a couple of dB over 1500 iters. Is this run ok?",
             how="No fault. BasicSR-style x2 SR (MSRResNet 24ch/3 blocks, bilinear base), batch 8, Adam 2e-4, MultiStepLR [1000,1300]; BasicSR logs the single-iteration l_pix (noisy) and PSNR rises slowly but steadily."),
        dict(name='run02', ship=False, script=RUN02_SCRIPT,
             files={'options/train_msrresnet_psnr.json': RUN02_JSON},
             cmds=[[]],
             truth='lr_too_high',
             symptom="KAIR MSRResNet x2 training: G_loss jumps around between ~0.5 and ~100 instead of going down and Set5 PSNR stays somewhere between 4 and 11 dB, far below plain bicubic upscaling.",
             how="G_optimizer_lr set to 5e-2 (typical 1e-4..2e-4) for Adam in the KAIR options JSON; everything else standard. Loss spikes to ~1e2 within the first 20 iterations, then oscillates at a high level; PSNR never reaches the bilinear baseline (~24 dB)."),
        dict(name='run03', ship=True, script=RUN03_TRAIN,
             files={},
             cmds=[[]],
             truth='frozen_parameters',
             symptom="My grid-field fit of a single test card stalls: rgb_loss drops a little in the first hundred steps and then sits flat, eval PSNR is stuck around 17 dB for the whole run.",
             stdout='ns-train_console.txt',
             how="train.py builds an EMA copy of the field and then runs `for p in field.parameters(): p.requires_grad_(False)` on the live field instead of the EMA copy. Only the 12 colour-correction parameters still get gradients; the field never changes (Gradients/field.* never logged, Gradients/Total tiny)."),
        dict(name='run04', ship=False, script=RUN04_SCRIPT,
             files={'edsr_x2c24b3_g1_1500i_synthdiv2k.py': RUN04_CFG},
             cmds=[[]],
             truth='lr_too_low',
             symptom="EDSR x2 in mmagic barely learns: loss only goes from 0.24 to about 0.20 over 1500 iterations, in an almost straight line, and Set5 PSNR is still around 13 dB.",
             how="optim_wrapper optimizer lr=1e-6 instead of the usual 1e-4 (EDSR without a bilinear skip, so it starts at ~11 dB); loss and PSNR improve linearly and very slowly."),
        dict(name='run05', ship=True, script=RUN05_TRAIN,
             files={'options/denoise_dncnn_s25.yml': RUN05_YML},
             cmds=[[]],
             truth='lr_schedule_bug',
             symptom="Color DnCNN for sigma 25: loss stops going down after the first couple of epochs and val PSNR gets stuck a bit above the noisy input; 40 epochs change nothing.",
             how="StepLR(step_size=10, gamma=0.5) is meant per epoch (config: 'halve the lr every 10 epochs') but scheduler.step() is called after every optimizer step (25 iterations/epoch), so the lr halves every 10 iterations and is ~1e-33 by the end."),
        dict(name='run06', ship=True, script=RUN06_TRAIN,
             files={'base.json': RUN06_CONFIG},
             cmds=[[]],
             truth='healthy',
             symptom="instant-ngp style image fit (torch port) on a 256x256 test card: is this run ok?",
             how="No fault. Multires grid encoding (12 levels) + 2x32 MLP, Adam 5e-3 with exponential decay from step 1500, batch 256 pixels; PSNR climbs smoothly from ~21 dB to ~40 dB."),
        dict(name='run07', ship=False, script=HIDDEN_BASICSR,
             files={'train_DnCNN_synthSIDD.yml': RUN07_YML, 'test_DnCNN_synthSIDD.yml': RUN07_TEST_YML},
             cmds=[['train', 'train_DnCNN_synthSIDD.yml'], ['test', 'test_DnCNN_synthSIDD.yml']],
             truth='data_leakage',
             symptom="My denoiser reports ~59 dB validation PSNR already at the first validation (iter 50) and ~69 dB at the end, way better than any paper, but on the test set it gives ~21 dB and the outputs look as noisy as the inputs.",
             how="In the train option file dataroot_lq points at the same 'target' folder as dataroot_gt for both train and val, so the network input is the clean target; the net learns identity, val is near-perfect from iteration 50, and test on the real 'input' folder gives the noisy-input PSNR (~20 dB)."),
        dict(name='run08', ship=True, script=RUN08_TRAIN,
             files={'options/train_denoise_s25.json': RUN08_JSON},
             cmds=[[]],
             truth='unnormalized_inputs',
             symptom="My denoiser's G_loss sits around 85 from the first iteration to the last and the test PSNR is 8.45 dB after every single epoch.",
             how="Images are read as uint8 and converted with .float() without /255 (inputs and targets in 0..255) while the network ends in a sigmoid (output in 0..1): the sigmoid saturates, the loss sits at ~mean pixel value and PSNR ~6 dB."),
        dict(name='run09', ship=False, script=HIDDEN_BASICSR,
             files={'train_DnCNN_synthBSD.yml': RUN09_YML},
             cmds=[['train', 'train_DnCNN_synthBSD.yml']],
             truth='overfitting',
             symptom="Training l_pix keeps dropping the whole run, but validation PSNR was best at iteration 150 and slowly goes down after that.",
             how="Only 8 fixed noisy/clean 16x16 training patches (no augmentation, fixed noise) for a 48-channel 6-layer DnCNN trained 1200 iterations: train L1 falls ~20x while val PSNR peaks early and then declines."),
        dict(name='run10', ship=True, script=RUN10_TRAIN,
             files={},
             cmds=[[]],
             truth='eval_mode_forgotten',
             symptom="Validation PSNR of my DnCNN jumps up and down between evaluations, and when I re-test the saved best checkpoint on the same 8 images I get a different (lower) number than the one logged.",
             how="DnCNN with BatchNorm and Dropout2d(0.1); the test() function is called without model.eval() (and the reloaded best model is also left in train mode), so dropout is active and BN uses per-image batch statistics at validation: val PSNR is ~2 dB lower and non-deterministic."),
        dict(name='run11', ship=False, script=RUN11_SCRIPT,
             files={'edsr_x2c24b3_g1_1k_synthdiv2k.py': RUN11_CFG},
             cmds=[[]],
             truth='preprocessing_mismatch',
             symptom="EDSR x2 in mmediting: the training loss goes down normally (0.15 -> 0.027) but Set5 PSNR at validation is about 11 dB from the first evaluation on and hardly moves.",
             how="In the mmediting config the test_pipeline has Normalize(keys=['lq'], mean=0.5, std=0.5) while the train_pipeline uses mean 0 / std 1, so validation inputs are in [-1,1] while training inputs are in [0,1]."),
        dict(name='run12', ship=True, script=RUN12_TRAIN,
             files={'options/train_bfsr_x2.yml': RUN12_YML.replace('SEEDVALUE', str(seed12))},
             cmds=[[]],
             truth='numerical_instability',
             symptom="My bias-free SR net trained with a PSNR loss runs fine for ~300 iterations, then l_psnr turns into nan and validation PSNR is nan for the rest of the run.",
             how=f"PSNRLoss computes torch.log(mse) with no epsilon. At iteration {first12[0]} an all-black 16x16 crop is drawn (frame {first12[1]}, {'a letterboxed frame' if first12[2] else 'a dark corner of the frame'}); the bias-free net maps the all-zero LR input to exactly zero, so mse == 0 for that sample, log(0) = -inf, the backward pass gives NaN gradients and every weight becomes NaN (l_psnr and val psnr are nan from then on)."),
    ]


def run_one(spec):
    d = os.path.join(RUNS, spec['name'])
    os.makedirs(d)
    for rel, text in spec['files'].items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as f:
            f.write(text)
    script = 'train.py' if spec['ship'] else '_gen_script.py'
    with open(os.path.join(d, script), 'w') as f:
        f.write(spec['script'])
    t0 = time.time()
    for args in spec['cmds']:
        out = open(os.path.join(d, spec['stdout']), 'w') if spec.get('stdout') else subprocess.DEVNULL
        r = subprocess.run([sys.executable, script] + args, cwd=d, stdout=out, stderr=subprocess.PIPE, text=True)
        if spec.get('stdout'):
            out.close()
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            raise SystemExit(f"{spec['name']} failed")
    if not spec['ship']:
        os.remove(os.path.join(d, script))
    shutil.rmtree(os.path.join(d, '__pycache__'), ignore_errors=True)
    print(f"{spec['name']}: {spec['truth']:<24s} {time.time() - t0:6.1f}s", flush=True)


def main():
    only = sys.argv[1:]
    all_specs = specs()
    if not only:
        shutil.rmtree(RUNS, ignore_errors=True)
    os.makedirs(RUNS, exist_ok=True)
    for spec in all_specs:
        if only and spec['name'] not in only:
            continue
        shutil.rmtree(os.path.join(RUNS, spec['name']), ignore_errors=True)
        run_one(spec)
    truth = {s['name']: {'truth': s['truth'], 'symptom': s['symptom'], 'how': s['how']} for s in all_specs}
    with open(os.path.join(HERE, 'truth.json'), 'w') as f:
        json.dump(truth, f, indent=2)


if __name__ == '__main__':
    main()
