"""run08: Polish blog post; Softmax layer in front of CrossEntropyLoss."""
import math
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run08"

TRAIN_PY = dedent('''
import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, in_dim, hidden, n_cls):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, n_cls),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.layers(x)


def run(hidden, epochs=15, lr=1e-3):
    torch.manual_seed(0)
    d = np.load("data/gatunki_feats.npz")
    train = DataLoader(TensorDataset(torch.from_numpy(d["X_train"]), torch.from_numpy(d["y_train"])),
                       batch_size=64, shuffle=True)
    Xv, yv = torch.from_numpy(d["X_val"]), torch.from_numpy(d["y_val"])

    model = Classifier(d["X_train"].shape[1], hidden, 10)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"hidden={hidden} params={n_params}")
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()

    for ep in range(1, epochs + 1):
        model.train()
        tot, correct, n = 0.0, 0, 0
        for xb, yb in train:
            out = model(xb)
            loss = criterion(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
        model.eval()
        with torch.no_grad():
            vout = model(Xv)
            vloss = criterion(vout, yv).item()
            vacc = (vout.argmax(1) == yv).float().mean().item()
        print(f"[ep {ep:2d}] loss {tot / n:.4f}  acc {correct / n:.4f}  |  val_loss {vloss:.4f}  val_acc {vacc:.4f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=128)
    run(ap.parse_args().hidden)
''')


class Classifier(nn.Module):
    def __init__(self, in_dim, hidden, n_cls):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                    nn.Linear(hidden, n_cls), nn.Softmax(dim=1))

    def forward(self, x):
        return self.layers(x)


def run(Xtr, ytr, Xv, yv, hidden, epochs=15, lr=1e-3):
    torch.manual_seed(0)
    model = Classifier(Xtr.shape[1], hidden, 10)
    out = [f"$ python train.py --hidden {hidden}",
           f"hidden={hidden} params={sum(p.numel() for p in model.parameters())}"]
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    crit = nn.CrossEntropyLoss()
    hist = []
    for ep in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(len(Xtr)); tot, correct = 0.0, 0
        for i in range(0, len(perm), 64):
            b = perm[i:i + 64]
            o = model(Xtr[b]); loss = crit(o, ytr[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item() * len(b); correct += (o.argmax(1) == ytr[b]).sum().item()
        model.eval()
        with torch.no_grad():
            vo = model(Xv); vl = crit(vo, yv).item(); va = (vo.argmax(1) == yv).float().mean().item()
        hist.append((tot / len(perm), correct / len(perm), vl, va))
        out.append(f"[ep {ep:2d}] loss {tot / len(perm):.4f}  acc {correct / len(perm):.4f}  |  val_loss {vl:.4f}  val_acc {va:.4f}")
    return out, hist


def gen():
    rng = seed_all(808)
    d, k = 32, 10
    Xtr, ytr, cents = make_clf(rng, 4000, d, k, sep=0.6, sub=3)
    Xv, yv = sample_from(rng, cents, 1000)
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr, Xv = torch.from_numpy((Xtr - mu) / sd), torch.from_numpy((Xv - mu) / sd)
    ytr, yv = torch.from_numpy(ytr), torch.from_numpy(yv)
    o1, h1 = run(Xtr, ytr, Xv, yv, 128)
    o2, h2 = run(Xtr, ytr, Xv, yv, 384)
    write(RUN, "train.py", TRAIN_PY)
    sum_p1 = int(o1[1].split("params=")[1]); sum_p2 = int(o2[1].split("params=")[1])
    write(RUN, "logs/hidden128.txt", "\n".join(o1))
    write(RUN, "logs/hidden384.txt", "\n".join(o2))
    floor = -math.log(math.e / (math.e + 9))
    post = dedent(f'''
    # Moja sieć utknęła na loss ~{comma(h1[-1][0], 1)} i nie chce zejść niżej. Za mała? (wpis + prośba o pomoc)

    *devblog.pl › Uczenie maszynowe › wpis użytkownika **m_kaczmarek** · 9 min czytania · komentarze (0)*

    Od kilku tygodni uczę się PyTorcha po godzinach i postanowiłem zrobić własny klasyfikator gatunków muzycznych
    na cechach wyciągniętych z plików audio (32 cechy: MFCC-średnie, tempo, spectral centroid itd., 10 gatunków,
    4000 utworów w treningu, 1000 w walidacji). Cechy są ustandaryzowane (średnia 0, odchylenie 1), podział losowy.

    ## Co się dzieje

    Loss spada szybko tylko przez pierwsze 2-3 epoki, a potem pełznie bardzo powoli i zatrzymuje się wysoko.
    Przy `hidden=128` po 15 epokach mam loss {comma(h1[-1][0], 3)} (val_loss {comma(h1[-1][2], 3)}) i val_acc {comma(h1[-1][3], 3)}.
    Z tego co czytałem, dla 10 klas dobrze wytrenowany model powinien mieć loss dużo bliżej zera.

    Pomyślałem klasycznie: model jest za mały, underfitting. Zwiększyłem więc warstwy ukryte do 384
    ({sum_p2 // sum_p1}x więcej parametrów) i... prawie nic. Loss na koniec {comma(h2[-1][0], 3)}, val_acc {comma(h2[-1][3], 3)}.
    Krzywe wyglądają prawie tak samo, tylko trochę szybciej dochodzą do tej samej "podłogi".

    ## Co już sprawdziłem

    - standaryzacja cech – jest (średnia 0, odchylenie 1 na zbiorze treningowym),
    - Adam z domyślnym lr 1e-3,
    - dane: klasy są mniej więcej zbalansowane, po ~400 utworów na gatunek.

    Logi z obu uruchomień i cały skrypt wrzucam poniżej. Czy ktoś ma pomysł, co jeszcze mogę zwiększyć? Myślałem o
    dodaniu trzeciej warstwy albo przejściu na jakąś sieć konwolucyjną na spektrogramach, ale wolałbym najpierw zrozumieć,
    czemu ten prosty MLP tak się zatrzymuje.
    ''')
    write(RUN, "post.md", post)
    symptom = ("Loss utknął na ok. " + comma(h1[-1][0], 1) + " i nie chce zejść niżej; myślałem, że model jest za mały, "
               "ale po zwiększeniu hidden do 384 jest tak samo.")
    how = ("The Classifier ends with nn.Softmax(dim=1) and its output goes into nn.CrossEntropyLoss, which applies log_softmax "
           f"again: loss cannot go below ~{floor:.2f} and gradients are squashed, so train loss floors at {h1[-1][0]:.3f} (hidden 128) "
           f"and {h2[-1][0]:.3f} (hidden 384) regardless of capacity.")
    return dict(truth="double_softmax", symptom=symptom, how=how)
