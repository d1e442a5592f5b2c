"""Translate the test set with a checkpoint and report BLEU.

    python evaluate.py --path checkpoints/checkpoint_best.pt [--output hyps.txt]
"""
import argparse
import collections
import logging
import math
import sys
import time
from types import SimpleNamespace

import torch

from train import AttentionRNN, Dictionary, collate, greedy_generate, make_pairs, make_toy_lang

logging.basicConfig(format="%(asctime)s | %(levelname)s | %(name)s | %(message)s", datefmt="%Y-%m-%d %H:%M:%S",
                    level=logging.INFO, stream=sys.stdout)
logger = logging.getLogger("fairseq_cli.generate")


def ngram_counts(words, n):
    return collections.Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def sentence_bleu(hyp, ref, max_n=4):
    h, r = hyp.split(), ref.split()
    prec = []
    for n in range(1, max_n + 1):
        hc, rc = ngram_counts(h, n), ngram_counts(r, n)
        total = max(len(h) - n + 1, 0)
        prec.append(sum(min(c, rc[g]) for g, c in hc.items()) / total if total else 0.0)
    if min(prec) == 0:
        return 0.0
    bp = 1.0 if len(h) > len(r) else math.exp(1 - len(r) / max(len(h), 1))
    return 100.0 * bp * math.exp(sum(math.log(p) for p in prec) / max_n)


def bleu_score(hyps, refs):
    return sum(sentence_bleu(h, r) for h, r in zip(hyps, refs)) / max(len(refs), 1)


def load_model(path):
    state = torch.load(path)
    args = SimpleNamespace(**state["args"])
    src_vocab, tgt_vocab, lex = make_toy_lang(args.lang_seed)
    sd, td = Dictionary(src_vocab), Dictionary(tgt_vocab)
    model = AttentionRNN(sd, td, args.cell, args.encoder_embed_dim, args.encoder_hidden_size, args.dropout)
    model.load_state_dict(state["model"])
    model.eval()
    return model, args, (src_vocab, lex), sd, td


def translate_all(model, pairs, sd, td, batch_size=64):
    hyps = []
    for b in range(0, len(pairs), batch_size):
        src, _, _ = collate(pairs[b:b + batch_size], sd, td)
        hyps += [td.string(row) for row in greedy_generate(model, src, td).tolist()]
    return hyps


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--path", default="checkpoints/checkpoint_best.pt")
    p.add_argument("--test-size", type=int, default=500)
    p.add_argument("--print-samples", type=int, default=5)
    p.add_argument("--output", default=None)
    a = p.parse_args()

    model, args, (src_vocab, lex), sd, td = load_model(a.path)
    test = make_pairs(src_vocab, lex, a.test_size, args.lang_seed + 3)
    logger.info(f"loading model(s) from {a.path}")
    logger.info(f"loaded {len(test)} examples from: data-bin/toy/test.src-tgt")

    t0 = time.time()
    hyps = translate_all(model, test, sd, td)
    refs = [" ".join(t) for _, t in test]
    el = time.time() - t0
    for i in range(a.print_samples):
        print(f"S-{i}\t{' '.join(test[i][0])}")
        print(f"T-{i}\t{refs[i]}")
        print(f"H-{i}\t{hyps[i]}")
    if a.output:
        with open(a.output, "w") as f:
            f.write("\n".join(hyps) + "\n")
    ntok = sum(len(h.split()) for h in hyps)
    logger.info(f"Translated {len(hyps)} sentences ({ntok} tokens) in {el:.1f}s "
                f"({len(hyps) / el:.2f} sentences/s, {ntok / el:.2f} tokens/s)")
    print(f"Generate test with beam=1: BLEU4 = {bleu_score(hyps, refs):.2f}")


if __name__ == "__main__":
    main()
