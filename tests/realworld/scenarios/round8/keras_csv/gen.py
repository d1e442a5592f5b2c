#!/usr/bin/env python
"""Generate the 12 Keras-style benchmark runs (torch on CPU, deterministic seeds).

Each run's real training script = src/common.py (Keras-like fit/progress/CSVLogger helper)
+ src/runNN.py (the user's code).  It is executed in a scratch dir; only the files a
user would hand over are copied to runs/<name>/.  train.py is shipped for ~half the runs.
Usage: /work/main/.venv/bin/python gen.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, 'src')
RUNS = os.path.join(HERE, 'runs')
PY = sys.executable

# name: (files handed over, ship train.py?)
SPECS = {
    'run01': (['training.log', 'console.txt'], True),
    'run02': (['training.log', 'history.json'], False),
    'run03': (['console.txt'], False),
    'run04': (['training.log', 'console.txt'], False),
    'run05': (['console.txt'], True),
    'run06': (['training.log', 'history.json'], False),
    'run07': (['console.txt', 'history.json'], True),
    'run08': (['training.log'], True),
    'run09': (['console.txt'], True),
    'run10': (['console.txt'], True),
    'run11': (['training.log', 'history.json'], False),
    'run12': (['console.txt', 'history.json'], False),
}

TRUTH = {
    'run01': {'truth': 'healthy',
              'symptom': 'Small CNN on my 16x16 shape images, 20 epochs - is this run ok?',
              'how': 'nothing planted: standardized synthetic shape images, 2-conv CNN, Adam 1e-3, batch 32, shuffled'},
    'run02': {'truth': 'overfitting',
              'symptom': 'Training accuracy hits 100% but my validation loss keeps going up the longer I train.',
              'how': '4-layer 512-wide MLP (~420k params) trained 150 epochs without any regularisation on 252 '
                     'samples of a 40-feature make_classification task'},
    'run03': {'truth': 'data_leakage',
              'symptom': 'My customer plan classifier gets 100% on validation after 5 epochs - seems too good, '
                         'can I trust it?',
              'how': "the label-encoded target column 'plan_id' is created on the DataFrame and only 'plan' is "
                     "dropped, so the target is one of the 13 input features (train and val)"},
    'run04': {'truth': 'label_noise',
              'symptom': 'Training accuracy is stuck around 70% no matter how long I train, validation never gets past '
                         '~67% and gets worse later on.',
              'how': '40% of all labels (train and val) replaced by a uniformly random class before the split, '
                     'simulating a bad annotation round; small MLP, SGD+momentum, 60 epochs'},
    'run05': {'truth': 'label_misalignment',
              'symptom': 'Validation accuracy stays at 20% (5 classes) for the whole run, the loss barely moves.',
              'how': 'np.random.shuffle(X) and np.random.shuffle(y) called separately, so features and labels '
                     'are permuted independently before the split'},
    'run06': {'truth': 'lr_too_high',
              'symptom': 'Loss went down nicely for a few epochs and then got worse and worse until accuracy was '
                         'at chance.',
              'how': 'SGD with lr=0.3 and momentum 0.9 on a 2-hidden-layer ReLU MLP (fine at ~0.02)'},
    'run07': {'truth': 'unnormalized_inputs',
              'symptom': 'Loan default model: the loss is huge and jumps around, accuracy flips between ~29% '
                         'and ~71% from epoch to epoch.',
              'how': 'raw tabular features fed to the MLP without scaling (income ~6e4, loan amount ~1.5e4, '
                     'account age ~2e3 days next to ratios in 0..1)'},
    'run08': {'truth': 'double_softmax',
              'symptom': 'Digits classifier reaches 98% accuracy but the loss never gets below ~1.47, why is '
                         'the loss so high?',
              'how': 'model ends in nn.Softmax(dim=1) and is trained with nn.CrossEntropyLoss (which applies '
                     'log-softmax again)'},
    'run09': {'truth': 'frozen_parameters',
              'symptom': 'The loss and accuracy are exactly the same number every epoch, nothing changes.',
              'how': 'encoder frozen with requires_grad_(False) and the optimizer is built on '
                     'model.encoder.parameters(), so the trainable classifier head is never updated'},
    'run10': {'truth': 'data_not_shuffled',
              'symptom': 'Training accuracy climbs to ~88% but validation accuracy sits at 10% for most of the run and '
                         'only reaches ~31% at the end.',
              'how': 'digits concatenated class by class (one folder per digit) and DataLoader without '
                     'shuffle=True, so every epoch sees class 0 ... class 9 in blocks'},
    'run11': {'truth': 'mode_collapse',
              'symptom': 'Chargeback model has 92% accuracy from the first epoch but precision and recall are 0.',
              'how': '92/8 imbalanced binary data with unweighted BCE and SGD weight_decay=0.05: the model '
                     'outputs the majority class for every sample for all 50 epochs (AUC is high, nothing '
                     'crosses 0.5)'},
    'run12': {'truth': 'healthy',
              'symptom': 'Two-moons MLP trained for 200 epochs, validation jumps around a bit - is this ok?',
              'how': 'nothing planted: make_moons noise 0.35, small ReLU MLP, plain SGD lr 0.03 batch 8; '
                     'converges in ~40 epochs to the noise floor (~0.28 loss, ~88% acc), noisy because of '
                     'batch 8'},
}


def build_script(name):
    with open(os.path.join(SRC, 'common.py')) as f:
        common = f.read()
    with open(os.path.join(SRC, name + '.py')) as f:
        body = f.read()
    return common.rstrip() + '\n\n\n' + body


def main(only=None):
    os.makedirs(RUNS, exist_ok=True)
    for name, (files, ship_code) in SPECS.items():
        if only and name not in only:
            continue
        script = build_script(name)
        out = os.path.join(RUNS, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, 'train.py'), 'w') as f:
                f.write(script)
            env = dict(os.environ, OMP_NUM_THREADS='1', MKL_NUM_THREADS='1', PYTHONHASHSEED='0')
            p = subprocess.run([PY, 'train.py'], cwd=tmp, capture_output=True, text=True, env=env)
            if p.returncode != 0:
                print(p.stderr)
                raise SystemExit('%s failed' % name)
            with open(os.path.join(tmp, 'console.txt'), 'w') as f:
                f.write(p.stdout)
            for fn in files:
                shutil.copy(os.path.join(tmp, fn), os.path.join(out, fn))
            if ship_code:
                shutil.copy(os.path.join(tmp, 'train.py'), os.path.join(out, 'train.py'))
        print(name, 'done', sorted(os.listdir(out)), flush=True)
    with open(os.path.join(HERE, 'truth.json'), 'w') as f:
        json.dump(TRUTH, f, indent=2)


if __name__ == '__main__':
    main(sys.argv[1:])
