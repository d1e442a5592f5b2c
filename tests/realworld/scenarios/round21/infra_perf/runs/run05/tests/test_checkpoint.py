import argparse

import torch

from trainer import load_checkpoint, save_checkpoint, train_tiny


def cfg():
    return argparse.Namespace(lr=0.01, epochs=5, hidden=32, seed=0)


def test_loss_decreases():
    _, hist = train_tiny(cfg())
    print("history", [round(h, 4) for h in hist])
    assert hist[-1] < 0.5 * hist[0]


def test_checkpoint_roundtrip(tmp_path):
    model, hist = train_tiny(cfg())
    save_checkpoint(tmp_path / "ck.pt", model, cfg(), hist)
    model2, cfg2, hist2 = load_checkpoint(tmp_path / "ck.pt")
    x = torch.randn(4, 8)
    assert torch.allclose(model(x), model2(x))
    assert cfg2.hidden == 32 and hist2 == hist


def test_resume_continues(tmp_path):
    model, hist = train_tiny(cfg())
    save_checkpoint(tmp_path / "ck.pt", model, cfg(), hist)
    _, _, hist2 = load_checkpoint(tmp_path / "ck.pt")
    assert len(hist2) == 5
