"""Transcribe the dev/test set with a trained checkpoint and score it.

    python transcribe.py --ckpt checkpoints/ConvGRU-CTC-char.ckpt --split dev
"""
import argparse

import torch

from train import (CFG, build_manifest, build_model, char_error_rate, collate, greedy_decode, load_split,
                   make_toy_world, word_error_rate)

SPLITS = {"dev": ("n_dev", 2, "dv"), "test": ("n_test", 3, "te")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", default=f"checkpoints/{CFG['name']}.ckpt")
    p.add_argument("--split", default="dev", choices=list(SPLITS))
    p.add_argument("--batch_size", type=int, default=1)
    p.add_argument("--show", type=int, default=8)
    args = p.parse_args()
    torch.manual_seed(0)

    model = build_model()
    ckpt = torch.load(args.ckpt)
    model.load_state_dict(ckpt["state_dict"])
    print(f"loaded {args.ckpt} (epoch {ckpt['epoch']}, val_wer {ckpt['val_wer']:.4f})")

    world = make_toy_world(CFG["data"]["world_seed"], CFG["data"]["n_letters"], CFG["data"]["n_words"],
                           CFG["model"]["feat_in"])
    key, off, prefix = SPLITS[args.split]
    manifest = build_manifest(*load_split(world, CFG["data"].get(key, 200), CFG["data"]["world_seed"] + off, prefix))
    print(f"{args.split}: {len(manifest)} utterances, batch_size={args.batch_size}")

    hyps, refs = [], []
    with torch.no_grad():
        for i in range(0, len(manifest), args.batch_size):
            x, xl, _, _, texts = collate(manifest[i:i + args.batch_size])
            lp, ol = model(x, xl)
            hyps += greedy_decode(lp, ol)
            refs += texts
    for h, r in list(zip(hyps, refs))[:args.show]:
        print(f"REF: {r}")
        print(f"HYP: {h}")
    print(f"{args.split}: WER {100 * word_error_rate(hyps, refs):.2f} % | CER {100 * char_error_rate(hyps, refs):.2f} %"
          f" | {len(refs)} utts")


if __name__ == "__main__":
    main()
