import subprocess, sys, tempfile, os, re
sys.path.insert(0, '/tmp/p60x')
import gen
S = gen.SCRIPTS
fixes = {
 'lr_too_high': [("LR = 0.2", "LR = 1e-3")],
 'unnormalized_inputs': [('X = torch.tensor(df[features].values, dtype=torch.float32)',
                          'X = torch.tensor(df[features].values, dtype=torch.float32); X = (X - X[:4800].mean(0)) / X[:4800].std(0)')],
 'label_misalignment': [("X_train, X_val = train_test_split(X, test_size=0.2, shuffle=True)\ny_train, y_val = train_test_split(y, test_size=0.2, shuffle=True)",
                         "X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.2, shuffle=True)")],
 'double_softmax': [("            nn.Softmax(dim=1),\n", "")],
 'frozen_parameters': [("optimizer = torch.optim.Adam(model.classifier.parameters(), lr=1e-3)\nmodel.classifier = nn.Linear(32 * 4 * 4, 3)",
                        "model.classifier = nn.Linear(32 * 4 * 4, 3)\noptimizer = torch.optim.Adam(model.classifier.parameters(), lr=1e-3)")],
 'missing_zero_grad': [("        logits = model(xb)\n", "        optimizer.zero_grad()\n        logits = model(xb)\n")],
 'data_not_shuffled': [("batch_size=8)", "batch_size=8, shuffle=True)")],
 'numerical_instability': [("    p = torch.sigmoid(logits)\n    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()",
                            "    return nn.functional.binary_cross_entropy_with_logits(logits, target)")],
 'label_noise': [("< 0.4", "< 0.0")],
 'eval_mode_forgotten': [("    with torch.no_grad():\n        for xb, yb in loader:", "    model.eval()\n    with torch.no_grad():\n        for xb, yb in loader:")],
}
for k, reps in fixes.items():
    s = S[k]
    for a, b in reps:
        assert a in s, (k, a)
        s = s.replace(a, b)
    d = tempfile.mkdtemp()
    open(os.path.join(d, 'train.py'), 'w').write(s)
    out = subprocess.run([sys.executable, 'train.py'], cwd=d, capture_output=True, text=True).stdout.strip().splitlines()
    print('=====', k, 'FIXED'); print('\n'.join(out[:2] + ['...'] + out[-4:]))
