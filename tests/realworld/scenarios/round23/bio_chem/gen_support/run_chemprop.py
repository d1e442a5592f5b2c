"""run01: chemprop-style FFN on fingerprint features, classification, trained far too long."""
import json
import time
import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import (seed_all, write, make_molecule, hashed_fp, auroc, auprc, SCAFFOLDS, SUBST,
                    grad_norm, param_norm)


class MPN(nn.Module):
    """features_only: the message passing encoder is bypassed, only the precomputed features go in."""

    def forward(self, feats):
        return feats


class MoleculeModel(nn.Module):
    def __init__(self, fin, hidden, n_layers, dropout):
        super().__init__()
        self.sigmoid = nn.Sigmoid()
        self.encoder = MPN()
        layers = [nn.Dropout(dropout), nn.Linear(fin, hidden)]
        for _ in range(n_layers - 2):
            layers += [nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, hidden)]
        layers += [nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, 1)]
        self.ffn = nn.Sequential(*layers)

    def forward(self, feats):
        return self.ffn(self.encoder(feats))


NMOL, SLOPE = 800, 6.0


def run(outdir):
    seed_all(0)
    t_start = time.perf_counter()
    rng = np.random.default_rng(101)
    N = NMOL
    sc_off = rng.normal(0, 0.8, len(SCAFFOLDS))
    sub_c = rng.normal(0, 0.6, len(SUBST))
    mols, lin, seen = [], [], set()
    while len(mols) < N:
        s, sid, subs = make_molecule(rng)
        if s in seen:
            continue
        seen.add(s)
        mols.append(s)
        lin.append(sc_off[sid] + sum(sub_c[k] for k in subs))
    lin = np.array(lin)
    p = 1 / (1 + np.exp(-(lin - np.quantile(lin, 0.4)) * SLOPE))
    y = (rng.random(N) < p).astype(np.float32)
    X = np.stack([hashed_fp(s, 1024) for s in mols]).astype(np.float32)

    # chemprop random split 0.8/0.1/0.1 with seed 0
    perm = np.random.default_rng(0).permutation(N)
    ntr, nva = int(0.8 * N), int(0.1 * N)
    tr, va, te = perm[:ntr], perm[ntr:ntr + nva], perm[ntr + nva:]

    E, BS, H, L = 60, 50, 300, 3
    init_lr, max_lr, final_lr, warmup = 1e-4, 1e-3, 1e-4, 2.0
    torch.manual_seed(0)
    model = MoleculeModel(1024, H, L, 0.0)
    nparams = sum(p.numel() for p in model.parameters() if p.requires_grad)
    opt = torch.optim.Adam(model.parameters(), lr=init_lr, weight_decay=0)
    steps_per_epoch = int(np.ceil(len(tr) / BS))
    total_steps = E * steps_per_epoch
    warm_steps = int(warmup * steps_per_epoch)
    gamma = (final_lr / max_lr) ** (1 / (total_steps - warm_steps))

    def lr_at(step):
        if step <= warm_steps:
            return init_lr + step * (max_lr - init_lr) / warm_steps
        if step <= total_steps:
            return max_lr * gamma ** (step - warm_steps)
        return final_lr

    Xt, yt = torch.tensor(X), torch.tensor(y)

    def evaluate(idx):
        model.eval()
        with torch.no_grad():
            logit = model(Xt[idx]).squeeze(1)
        pr = torch.sigmoid(logit).numpy()
        yy = y[idx]
        bce = float(F.binary_cross_entropy_with_logits(logit.double(), yt[idx].double()))
        return {"binary_cross_entropy": bce, "auc": auroc(yy, pr), "prc-auc": auprc(yy, pr)}

    lines = []
    cmd = ("chemprop_train --data_path data/bbbp_inhouse.csv --dataset_type classification "
           "--smiles_columns smiles --target_columns BBB_penetration --features_path data/ecfp4_1024.csv "
           "--features_only --no_features_scaling --metric binary_cross_entropy --extra_metrics auc prc-auc "
           f"--epochs {E} --batch_size {BS} --ffn_hidden_size {H} --ffn_num_layers {L} --dropout 0.0 "
           "--save_dir checkpoints/bbbp_ecfp_ffn --seed 0")
    args = {
        "activation": "ReLU", "adding_bond_types": True, "adding_h": False, "aggregation": "mean",
        "aggregation_norm": 100, "atom_constraints": [], "atom_descriptor_scaling": True,
        "atom_descriptors": None, "atom_descriptors_path": None, "atom_descriptors_size": 0,
        "atom_features_size": 0, "atom_messages": False, "atom_targets": [], "batch_size": BS,
        "bias": False, "bias_solvent": False, "bond_constraints": [], "bond_descriptor_scaling": True,
        "bond_descriptors": None, "bond_descriptors_path": None, "bond_descriptors_size": 0,
        "bond_features_size": 0, "bond_targets": [], "cache_cutoff": 10000, "checkpoint_dir": None,
        "checkpoint_frzn": None, "checkpoint_path": None, "checkpoint_paths": None, "class_balance": False,
        "config_path": None, "constraints_path": None, "crossval_index_dir": None, "crossval_index_file": None,
        "crossval_index_sets": None, "cuda": False, "data_path": "data/bbbp_inhouse.csv",
        "data_weights_path": None, "dataset_type": "classification", "depth": 3, "depth_solvent": 3,
        "device": "cpu", "dropout": 0.0, "empty_cache": False, "ensemble_size": 1, "epochs": E,
        "evidential_regularization": 0, "explicit_h": False, "extra_metrics": ["auc", "prc-auc"],
        "features_generator": None, "features_only": True, "features_path": ["data/ecfp4_1024.csv"],
        "features_scaling": False, "features_size": 1024, "ffn_hidden_size": H, "ffn_num_layers": L,
        "final_lr": final_lr, "folds_file": None, "freeze_first_only": False, "frzn_ffn_layers": 0,
        "gpu": None, "grad_clip": None, "hidden_size": 300, "hidden_size_solvent": 300,
        "ignore_columns": None, "init_lr": init_lr, "is_atom_bond_targets": False, "keeping_atom_map": False,
        "log_frequency": 10, "loss_function": "binary_cross_entropy", "max_data_size": None,
        "max_lr": max_lr, "metric": "binary_cross_entropy",
        "metrics": ["binary_cross_entropy", "auc", "prc-auc"], "minimize_score": True, "mpn_shared": False,
        "multiclass_num_classes": 3, "no_adding_bond_types": False, "no_atom_descriptor_scaling": False,
        "no_bond_descriptor_scaling": False, "no_cache_mol": False, "no_cuda": False,
        "no_features_scaling": True, "no_shared_atom_bond_ffn": False, "num_folds": 1, "num_lrs": 1,
        "num_tasks": 1, "num_workers": 8, "number_of_molecules": 1, "overwrite_default_atom_features": False,
        "overwrite_default_bond_features": False, "phase_features_path": None, "pytorch_seed": 0,
        "quiet": False, "reaction": False, "reaction_mode": "reac_diff", "reaction_solvent": False,
        "resume_experiment": False, "save_dir": "checkpoints/bbbp_ecfp_ffn", "save_preds": False,
        "save_smiles_splits": False, "seed": 0, "separate_test_atom_descriptors_path": None,
        "separate_test_bond_descriptors_path": None, "separate_test_constraints_path": None,
        "separate_test_features_path": None, "separate_test_path": None,
        "separate_test_phase_features_path": None, "separate_val_atom_descriptors_path": None,
        "separate_val_bond_descriptors_path": None, "separate_val_constraints_path": None,
        "separate_val_features_path": None, "separate_val_path": None,
        "separate_val_phase_features_path": None, "shared_atom_bond_ffn": True,
        "show_individual_scores": False, "smiles_columns": ["smiles"], "spectra_activation": "exp",
        "spectra_phase_mask_path": None, "spectra_target_floor": 1e-08, "split_key_molecule": 0,
        "split_sizes": [0.8, 0.1, 0.1], "split_type": "random", "target_columns": ["BBB_penetration"],
        "target_weights": None, "task_names": ["BBB_penetration"], "test": False, "test_fold_index": None,
        "train_data_size": None, "undirected": False, "use_input_features": True, "val_fold_index": None,
        "warmup_epochs": warmup, "weights_ffn_num_layers": 2,
    }
    lines.append("Command line")
    lines.append("python /home/mkowalski/miniconda3/envs/chemprop/bin/" + cmd)
    lines.append("Args")
    import pprint
    lines.extend(pprint.pformat(args, width=80).splitlines())
    lines.append("Setting molecule featurization parameters to default.")
    lines.append("Loading data")
    lines.append("Number of tasks = 1")
    lines.append("Fold 0")
    lines.append("Splitting data with seed 0")
    lines.append("Class sizes")
    pos = y.mean()
    lines.append(f"BBB_penetration 0: {100 * (1 - pos):.2f}%, 1: {100 * pos:.2f}%")
    lines.append(f"Total size = {N:,} | train size = {len(tr):,} | val size = {len(va):,} | test size = {len(te):,}")
    lines.append("Building model 0")
    lines.extend(repr(model).splitlines())
    lines.append(f"Number of parameters = {nparams:,}")

    n_iter = 0
    step = 0
    best, best_epoch, best_state = float("inf"), 0, None
    loss_sum, iter_count = 0.0, 0
    curve = []
    for epoch in range(E):
        lines.append(f"Epoch {epoch}")
        model.train()
        order = np.random.default_rng(epoch).permutation(tr)
        for b in range(steps_per_epoch):
            bi = torch.tensor(order[b * BS:(b + 1) * BS])
            opt.zero_grad()
            logit = model(Xt[bi]).squeeze(1)
            loss = F.binary_cross_entropy_with_logits(logit, yt[bi])
            loss.backward()
            opt.step()
            step += 1
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            loss_sum += loss.item()
            iter_count += 1
            n_iter += len(bi)
            if (n_iter // BS) % 10 == 0:
                lr = opt.param_groups[0]["lr"]
                lines.append(f"Loss = {loss_sum / iter_count:.4e}, PNorm = {param_norm(model):.4f}, "
                             f"GNorm = {grad_norm(model):.4f}, lr_0 = {lr:.4e}")
                curve.append((epoch, loss_sum / iter_count))
                loss_sum, iter_count = 0.0, 0
        sc = evaluate(va)
        for k in ("binary_cross_entropy", "auc", "prc-auc"):
            lines.append(f"Validation {k} = {sc[k]:.6f}")
        if sc["binary_cross_entropy"] < best:
            best, best_epoch = sc["binary_cross_entropy"], epoch
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
    lines.append(f"Model 0 best validation binary_cross_entropy = {best:.6f} on epoch {best_epoch}")
    model.load_state_dict(best_state)
    for k in best_state:
        lines.append(f'Loading pretrained parameter "{k}".')
    te_sc = evaluate(te)
    for k in ("binary_cross_entropy", "auc", "prc-auc"):
        lines.append(f"Model 0 test {k} = {te_sc[k]:.6f}")
    for k in ("binary_cross_entropy", "auc", "prc-auc"):
        lines.append(f"Ensemble test {k} = {te_sc[k]:.6f}")
    lines.append("1-fold cross validation")
    for k in ("binary_cross_entropy", "auc", "prc-auc"):
        lines.append(f"\tSeed 0 ==> test {k} = {te_sc[k]:.6f}")
    for k in ("binary_cross_entropy", "auc", "prc-auc"):
        lines.append(f"Overall test {k} = {te_sc[k]:.6f} +/- 0.000000")
    el = time.perf_counter() - t_start
    lines.append(f"Elapsed time = {str(datetime.timedelta(seconds=int(el)))}")

    d = f"{outdir}/runs/run01"
    write(f"{d}/verbose.log", "\n".join(lines) + "\n")
    write(f"{d}/args.json", json.dumps(args, indent=4, sort_keys=True) + "\n")
    first_val = None
    last_bce = sc["binary_cross_entropy"]
    post = f"""**chemprop FFN: training loss -> 0 but validation binary_cross_entropy goes up, what is going on?**

Hi all, training a FFN-only chemprop model (`--features_only`, ECFP4 1024 bits precomputed) on our in-house BBB
penetration set ({N} compounds). The training `Loss =` lines go down nicely to {curve[-1][1]:.1e}, but the
`Validation binary_cross_entropy` bottoms out at {best:.3f} (epoch {best_epoch}) and then climbs to {last_bce:.3f}
by the last epoch, and validation AUC has been stuck at ~{sc["auc"]:.2f} since epoch ~5.

I don't understand what's happening here. Should I just train longer (I was going to try `--epochs 150`)?
Full verbose.log and args.json attached.
"""
    write(f"{d}/post.md", post)
    return {
        "truth": "overfitting",
        "symptom": (f"Training loss goes down to ~{curve[-1][1]:.0e} but validation binary_cross_entropy bottoms out "
                    f"at epoch {best_epoch} and then keeps climbing. What is going on - should I just train longer?"),
        "how": (f"A 3-layer FFN ({nparams:,} params, dropout 0) on 1024-bit fingerprints of only {len(tr)} training "
                f"molecules trained {E} epochs: train BCE falls to ~{curve[-1][1]:.0e} while validation BCE rises from "
                f"{best:.3f} (epoch {best_epoch}) to {last_bce:.3f}; the LR schedule behaves as configured."),
        "_stats": {"best": best, "best_epoch": best_epoch, "last": last_bce, "time": el},
    }
