#!/usr/bin/env python3
"""Generate 12 ML-debugging scenario runs (Turkish / Vietnamese / Indonesian / Arabic / Persian Q&A style).

Every number in runs/ comes from a real (tiny, CPU) training run performed here. Scripts shown to the
user (train.py, predict.py) are executed verbatim from gen_support/scripts/ and their console output is
captured. Ground truth goes to truth.json.

Usage: .venv/bin/python gen.py
"""
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
from common import ar, fa, grad_norm, mixture, mlp  # noqa: E402
from runner import exec_script  # noqa: E402

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")
SCRIPTS = os.path.join(HERE, "gen_support", "scripts")
SITE = os.path.dirname(os.path.dirname(torch.__file__))  # .../site-packages
TORCH_VER = torch.__version__.split("+")[0]
TRUTH = {}


# ----------------------------------------------------------------------------- helpers
def W(run, name, text):
    d = os.path.join(RUNS, run)
    os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def copy_script(run, src, name):
    os.makedirs(os.path.join(RUNS, run), exist_ok=True)
    shutil.copy(os.path.join(SCRIPTS, src), os.path.join(RUNS, run, name))


def truth(run, cause, symptom, how):
    TRUTH[run] = {"truth": cause, "symptom": symptom, "how": how}


def scratch():
    return tempfile.mkdtemp(prefix="gen_")


def clock(start):
    """Wall-clock stamps for log lines: fixed start date + the real elapsed time of the run."""
    t0 = time.time()

    def now():
        return start + dt.timedelta(seconds=time.time() - t0)
    return now


def repath(text, workdir, project):
    return text.replace(workdir, project).replace(SITE, "/home/ahmed/miniconda3/envs/torch/lib/python3.11/site-packages")


def evaluate(model, X, y):
    model.eval()
    with torch.no_grad():
        o = model(X)
        return F.cross_entropy(o, y).item(), (o.argmax(1) == y).float().mean().item()


def pct(x, nd=1):
    return f"{100 * x:.{nd}f}"


def pct_tr(x, nd=1):
    """Turkish writes the decimal part of a percentage with a comma."""
    return pct(x, nd).replace(".", ",")


# ============================================================================ run01
def run01():
    """lr_too_high, Turkish technopat-style thread; config + long log, no code."""
    run = "run01"
    X, y = mixture(12000, 20, 10, seed=11, per_class=3, sep=1.2)
    Xt, yt, Xv, yv = map(torch.tensor, (X[:10000], y[:10000], X[10000:], y[10000:]))
    torch.manual_seed(11)
    model = mlp(20, 10, (256, 256))
    lr, bs, epochs = 0.05, 128, 20
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    nparam = sum(p.numel() for p in model.parameters())
    now = clock(dt.datetime(2024, 3, 14, 21, 3, 11, 482000))

    def ts():
        t = now()
        return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"

    lines = [f"{ts()} - INFO - Cihaz: cpu",
             f"{ts()} - INFO - Yapılandırma okundu: config.yaml",
             f"{ts()} - INFO - Eğitim örnekleri: {len(Xt)} | Doğrulama örnekleri: {len(Xv)} | Sınıf sayısı: 10",
             f"{ts()} - INFO - Model: MLP(20 -> 256 -> 256 -> 10), parametre sayısı: {nparam:,}",
             f"{ts()} - INFO - Optimizer: Adam (lr={lr}, betas=(0.9, 0.999), weight_decay=0.0)",
             f"{ts()} - INFO - Eğitim başlıyor..."]
    steps = (len(Xt) + bs - 1) // bs
    hist = []
    for ep in range(1, epochs + 1):
        model.train()
        t0 = time.time()
        perm = torch.randperm(len(Xt))
        L = C = 0.0
        for s in range(steps):
            b = perm[s * bs:(s + 1) * bs]
            out = model(Xt[b])
            loss = F.cross_entropy(out, yt[b])
            opt.zero_grad()
            loss.backward()
            gn = grad_norm(model)
            opt.step()
            L += loss.item() * len(b)
            C += (out.argmax(1) == yt[b]).sum().item()
            if (s + 1) % 5 == 0:
                lines.append(f"{ts()} - INFO - [epoch {ep}/{epochs}] adım {s + 1}/{steps} | kayıp: {loss.item():.4f}"
                             f" | grad_norm: {gn:.3f} | lr: {lr:.6f}")
        vl, va = evaluate(model, Xv, yv)
        hist.append((ep, L / len(Xt), C / len(Xt), vl, va))
        lines.append(f"{ts()} - INFO - Epoch {ep}/{epochs} tamamlandı | kayıp: {L / len(Xt):.4f} | doğruluk: "
                     f"{C / len(Xt):.4f} | val_kayıp: {vl:.4f} | val_doğruluk: {va:.4f} | süre: {time.time() - t0:.1f}s")
        if va == max(h[4] for h in hist):
            lines.append(f"{ts()} - INFO - En iyi model kaydedildi: checkpoints/en_iyi.pt (val_doğruluk={va:.4f})")
    lines.append(f"{ts()} - INFO - Eğitim bitti. En iyi val_doğruluk: {max(h[4] for h in hist):.4f}")
    W(run, "egitim_log.txt", "\n".join(lines))

    W(run, "config.yaml", f"""# deney: tablo_siniflandirma_v3
veri:
  egitim: data/egitim.csv
  dogrulama: data/dogrulama.csv
  ozellik_sayisi: 20
  sinif_sayisi: 10
  standartlastir: true
model:
  tip: mlp
  gizli_katmanlar: [256, 256]
  aktivasyon: relu
  dropout: 0.0
egitim:
  epoch: {epochs}
  batch_size: {bs}
  optimizer: adam
  lr: {lr}
  weight_decay: 0.0
  scheduler: yok
  seed: 11
log:
  her_n_adimda: 5
  checkpoint_klasoru: checkpoints/
""")
    best = max(hist, key=lambda h: h[4])
    low = min(hist, key=lambda h: h[1])
    last = hist[-1]
    W(run, "konu.txt", f"""Technopat Sosyal › Yazılım › Yapay Zeka ve Makine Öğrenmesi

Konu: PyTorch ile eğittiğim model önce öğreniyor sonra bozuluyor
Konuyu başlatan: mert_kaya34 · 14 Mart 2024 · #1

Merhaba arkadaşlar,

Bitirme projem için 20 özellikli tablo verisinde 10 sınıflı bir sınıflandırıcı eğitiyorum (10.000 eğitim,
2.000 doğrulama örneği, veriyi standartlaştırdım). İlk epoch'larda her şey güzel gidiyor, {best[0]}. epoch'ta
doğrulama doğruluğu %{pct_tr(best[4])} oluyor. Sonra kayıp tekrar yükselmeye başlıyor, adım adım bakınca da
bir düşüp bir fırlıyor. 20. epoch sonunda eğitim kaybı {last[1]:.2f} (en düşük {low[1]:.2f} idi), doğrulama
doğruluğu ise sadece %{pct_tr(last[4])}.

Kodda bir değişiklik yapmadım, sadece config'i hocanın örnek projesinden alıp kendi verime uyarladım.
Ne yapmam lazım, epoch sayısını mı azaltayım? config.yaml ve log dosyası ekte.

Şimdiden teşekkürler 🙏

Ekler: config.yaml, egitim_log.txt
""")
    truth(run, "lr_too_high",
          f"İlk epoch'larda doğrulama doğruluğu %{pct_tr(best[4])} oluyor, sonra kayıp tekrar yükselip zıplıyor ve "
          f"20. epoch'ta doğruluk sadece %{pct_tr(last[4])}; ne yapmam lazım?",
          f"Adam with lr=0.05 (config.yaml) on a 256x256 MLP: loss falls to {low[1]:.2f} by epoch {low[0]}, then "
          f"rises to {last[1]:.2f} with step-level spikes and grad-norm spikes; val accuracy falls from "
          f"{best[4]:.3f} to {last[4]:.3f}.")


# ============================================================================ run02
def run02():
    """missing_zero_grad (zero_grad once per epoch), Vietnamese Viblo post; train.py + two logs."""
    run = "run02"
    X, y = mixture(5000, 24, 5, seed=2, per_class=3, sep=1.3)
    wd = scratch()
    os.makedirs(os.path.join(wd, "data"))
    np.savez(os.path.join(wd, "data", "dac_trung.npz"), X_train=X[:4000], y_train=y[:4000],
             X_val=X[4000:], y_val=y[4000:])
    logs = {}
    for lr in ("0.01", "0.001"):
        out, exc = exec_script(os.path.join(SCRIPTS, "run02_train.py"), wd, ["--lr", lr])
        assert exc is None, out
        logs[lr] = out
        W(run, f"log_lr{lr}.txt", f"$ python train.py --lr {lr}\n" + out)
    copy_script(run, "run02_train.py", "train.py")

    def parse(out):
        steps, epochs = [], []
        for ln in out.splitlines():
            if "| bước" in ln:
                steps.append((float(ln.split("mất mát: ")[1].split(" |")[0]), float(ln.split("grad_norm: ")[1])))
            if ln.startswith("==> Epoch"):
                epochs.append(float(ln.split("độ chính xác val = ")[1]))
        return steps, epochs
    s1, e1 = parse(logs["0.01"])
    s2, e2 = parse(logs["0.001"])
    maxloss1 = max(v[0] for v in s1)
    maxloss_vi = f"{maxloss1:,.0f}".replace(",", ".")          # Vietnamese thousands separator
    lo2, hi2 = min(v[0] for v in s2), max(v[0] for v in s2)
    W(run, "bai_viet.md", f"""# [Hỏi] Loss tăng vọt trong mỗi epoch dù đã giảm learning rate (PyTorch, MLP)

*Đăng bởi **tuan_nguyen_dev** — Viblo Q&A — tags: `pytorch` `deep-learning` `machine-learning`*

Chào mọi người,

Mình đang làm đồ án nhận dạng hoạt động (HAR) từ dữ liệu gia tốc kế. Mỗi cửa sổ tín hiệu mình đã trích
ra 24 đặc trưng, có 5 lớp (đi bộ, chạy, ngồi, đứng, leo cầu thang), 4000 mẫu train và 1000 mẫu val.
Mô hình chỉ là MLP 2 lớp ẩn, SGD momentum 0.9.

Lúc đầu mình chạy `lr=0.01` thì giữa epoch 1 loss bắt đầu tăng vọt, lên tới {maxloss_vi} luôn 😅, độ chính xác
val tụt còn {e1[-1]:.2f}. Mình nghĩ chắc do learning rate quá cao nên đã giảm xuống `lr=0.001`. Epoch 1 đẹp
(val {e2[0]:.2f}) nhưng từ epoch 2 loss lại nhảy lung tung (thấp nhất {lo2:.2f}, cao nhất {hi2:.2f}), `grad_norm`
thì cứ tăng dần lên, độ chính xác val lúc {max(e2[1:]):.2f} lúc {min(e2):.2f}.

```bash
python train.py --lr 0.01  > log_lr0.01.txt
python train.py --lr 0.001 > log_lr0.001.txt
```

Có phải learning rate vẫn còn cao quá không ạ? Mình có nên giảm tiếp xuống 1e-4 hay chuyển sang Adam?
Code (`train.py`) và 2 file log mình để kèm bên dưới. Cảm ơn mọi người nhiều!
""")
    truth(run, "missing_zero_grad",
          f"Với lr=0.01 loss tăng vọt tới {maxloss_vi}; giảm lr xuống 0.001 thì epoch 1 đẹp nhưng sau đó loss vẫn "
          f"nhảy lung tung — có phải learning rate vẫn còn cao quá không?",
          "train.py calls optimizer.zero_grad() once per epoch, before the batch loop, so gradients accumulate over "
          "the epoch's 63 steps: grad_norm climbs steadily within every epoch and drops back at each epoch start; "
          "the loss blows up late in each epoch at both learning rates.")


# ============================================================================ run03
def run03():
    """healthy, Indonesian Kaskus thread; thin (8 log lines)."""
    run = "run03"
    X, y = mixture(9000, 12, 5, seed=33, per_class=3, sep=1.3)
    Xt, yt = torch.tensor(X[:6400]), torch.tensor(y[:6400])
    Xv, yv = torch.tensor(X[6400:8000]), torch.tensor(y[6400:8000])
    Xs, ys = torch.tensor(X[8000:]), torch.tensor(y[8000:])
    torch.manual_seed(33)
    model = mlp(12, 5, (128, 64), dropout=0.1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    hist = []
    for ep in range(1, 31):
        model.train()
        perm = torch.randperm(len(Xt))
        L = C = 0.0
        for i in range(0, len(Xt), 64):
            b = perm[i:i + 64]
            out = model(Xt[b])
            loss = F.cross_entropy(out, yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            L += loss.item() * len(b)
            C += (out.argmax(1) == yt[b]).sum().item()
        vl, va = evaluate(model, Xv, yv)
        hist.append((ep, L / len(Xt), C / len(Xt), vl, va))
    _, ta = evaluate(model, Xs, ys)
    shown = [h for h in hist if h[0] in (1, 5, 10, 15, 20, 25, 30)]
    loglines = "\n".join(f"Epoch {h[0]:2d}/30 - loss: {h[1]:.4f} - akurasi: {h[2]:.4f} - val_loss: {h[3]:.4f}"
                         f" - val_akurasi: {h[4]:.4f}" for h in shown)
    va_last = hist[-1][4]
    W(run, "thread.txt", f"""KASKUS › Tech › Programming
[ASK] Model klasifikasi ane udah bener belum gan? (PyTorch)

TS: rizky.dev99 · Newbie

Permisi agan-agan sekalian, newbie mau nanya nih 🙏
Ane lagi bikin model klasifikasi 5 kelas buat tugas kuliah, datanya 9000 baris (6400 train, 1600 val,
1000 test). Pake MLP biasa 2 hidden layer + dropout 0.1, Adam lr 0.001, batch 64, 30 epoch.
Ini log-nya ane ambil sebagian:

[code]
{loglines}
Akurasi test: {ta:.4f}
[/code]

Val akurasi di sekitar {va_last:.2f} dan loss masih turun dikit-dikit. Udah oke belum ya gan, atau harus
nambah epoch lagi? Dosen ane bilang harus yakin modelnya "udah bener" dulu sebelum nulis laporan.
Mohon pencerahannya suhu 🙏
""")
    truth(run, "healthy",
          f"Val akurasi di sekitar {va_last:.2f} dan loss masih turun dikit-dikit — udah oke belum, atau harus nambah epoch lagi?",
          f"Clean 5-class data, 128-64 MLP with Adam 1e-3: train and val loss fall together "
          f"({hist[0][3]:.3f} -> {hist[-1][3]:.3f} val), val accuracy {va_last:.3f}, test {ta:.3f}; nothing is wrong.")


# ============================================================================ run04
def run04():
    """label_out_of_range, Arabic forum post; thin, real traceback."""
    run = "run04"
    X, y = mixture(2400, 16, 5, seed=4, per_class=2, sep=1.3)
    wd = scratch()
    os.makedirs(os.path.join(wd, "data"))
    with open(os.path.join(wd, "data", "plants.csv"), "w", encoding="utf-8") as f:
        f.write(",".join([f"f{i}" for i in range(16)] + ["class"]) + "\n")
        for a, b in zip(X, y):
            f.write(",".join(f"{v:.4f}" for v in a) + f",{b + 1}\n")   # classes are numbered 1..5 in the file
    torch.manual_seed(4)
    out, exc = exec_script(os.path.join(SCRIPTS, "run04_train.py"), wd)
    assert isinstance(exc, IndexError), out
    out = repath(out, wd, "/home/ahmed/projects/plants")
    with open(os.path.join(wd, "data", "plants.csv"), encoding="utf-8") as f:
        head = "".join(f.readlines()[:3]).rstrip("\n")
    W(run, "post.md", f"""# خطأ IndexError عند تدريب شبكة بسيطة في PyTorch

**أحمد_م** · قسم البرمجة › تعلم الآلة والذكاء الاصطناعي

السلام عليكم ورحمة الله وبركاته،

أحاول تدريب شبكة بسيطة لتصنيف أنواع النباتات (خمسة أنواع) من ملف CSV فيه {ar(16)} ميزة و{ar(2400)} عينة،
لكن البرنامج يتوقف مباشرة بعد رسالة "بدء التدريب..." ولا تكتمل ولا حقبة واحدة. هذا كل ما يظهر في الطرفية:

```
$ python train.py
{out.rstrip()}
```

عمود class فيه رقم النوع (الأنواع مرقمة في الملف من ١ إلى ٥). أول سطرين من البيانات للتوضيح:

```
{head}
```

أستخدم Python 3.11 و torch {TORCH_VER} على Ubuntu. ما معنى هذا الخطأ وكيف أحله؟
وجزاكم الله خيراً.
""")
    truth(run, "label_out_of_range",
          "البرنامج يتوقف فوراً بعد \"بدء التدريب...\" بخطأ IndexError في دالة الخسارة ولا تكتمل أي حقبة، ما معنى هذا الخطأ؟",
          "The CSV numbers the 5 classes 1..5 while the model has num_classes=5 outputs, so the first batch holding "
          "class 5 makes CrossEntropyLoss raise 'IndexError: Target 5 is out of bounds.' (real traceback shown).")


# ============================================================================ run05
def run05():
    """data_leakage (augmented copies split across train/val), Persian forum; train.py + output."""
    run = "run05"
    X, y = mixture(1100, 10, 3, seed=5, per_class=4, sep=0.8)
    wd = scratch()
    os.makedirs(os.path.join(wd, "data"))
    np.savez(os.path.join(wd, "data", "dade_kargah.npz"), X=X[:600], y=y[:600])
    np.savez(os.path.join(wd, "data", "dade_jadid_moshtari.npz"), X=X[600:], y=y[600:])
    out, exc = exec_script(os.path.join(SCRIPTS, "run05_train.py"), wd)
    assert exc is None, out
    copy_script(run, "run05_train.py", "train.py")
    W(run, "khorooji.txt", "$ python train.py\n" + out)
    ep_lines = [ln for ln in out.splitlines() if ln.startswith("ایپاک")]
    vals = [float(ln.split("دقت ولیدیشن: ")[1]) for ln in ep_lines]
    first100 = next((i + 1 for i, v in enumerate(vals) if v >= 0.9995), None)
    new_acc = float(out.strip().splitlines()[-1].split(":")[-1])
    high = f"از ایپاک {fa(first100)} به بعد {fa(100)}٪ میشه" if first100 else f"به {fa(pct(max(vals)))}٪ می‌رسه"
    W(run, "post.md", f"""# دقت ولیدیشن خیلی بالا ولی روی داده‌ی جدید افتضاح!

**ارسال شده توسط:** sina_ml · انجمن برنامه‌نویسی › پایتون و یادگیری ماشین

سلام به همه دوستان

یه مدل ساده برای طبقه‌بندی کیفیت قطعات (۳ کلاس: سالم، قابل تعمیر، ضایعات) روی {fa(600)} نمونه‌ای که از
کارگاه جمع کردیم آموزش دادم. چون داده کم بود، با نویز کوچیک افزایش داده انجام دادم. نتیجه توی ولیدیشن
عالیه: دقت ولیدیشن {high}. ولی وقتی مشتری {fa(500)} نمونه‌ی جدید فرستاد و تست کردیم دقت فقط
{fa(pct(new_acc))}٪ شد!

به نظرم مدل overfit شده چون {fa(2)} تا لایه‌ی {fa(256)} تایی داره. dropout اضافه کنم یا لایه‌ها رو کمتر کنم؟
کد (train.py) و خروجی کامل (khorooji.txt) رو گذاشتم.

ممنون میشم راهنمایی کنید 🙏
""")
    truth(run, "data_leakage",
          f"دقت ولیدیشن {fa(100)}٪ ولی روی داده‌ی جدید مشتری {fa(pct(new_acc))}٪؛ فکر کنم مدل overfit شده، dropout اضافه کنم؟",
          "train.py makes 5 jittered copies (noise std 0.05) of every sample and only then splits randomly, so "
          f"val holds near-duplicates of training rows: val accuracy tracks train to 1.0 and val loss never rises, "
          f"while genuinely new data scores {new_acc:.3f}.")


# ============================================================================ run06
def run06():
    """double_softmax, Turkish DonanımHaber-style question; train.py + output."""
    run = "run06"
    X, y = mixture(7000, 64, 10, seed=6, per_class=2, sep=0.5)
    wd = scratch()
    os.makedirs(os.path.join(wd, "veri"))
    np.savez(os.path.join(wd, "veri", "rakamlar.npz"), X_egitim=X[:5500], y_egitim=y[:5500],
             X_test=X[5500:], y_test=y[5500:])
    out, exc = exec_script(os.path.join(SCRIPTS, "run06_train.py"), wd)
    assert exc is None, out
    copy_script(run, "run06_train.py", "train.py")
    W(run, "cikti.txt", "PS C:\\Users\\emre\\Desktop\\rakam_projesi> python train.py\n" + out)
    rows = [ln for ln in out.splitlines() if ln.startswith("Epoch")]
    last = rows[-1]
    tr_loss = float(last.split("kayıp: ")[1].split()[0])
    te_loss = float(last.split("test_kayıp: ")[1].split()[0])
    te_acc = float(last.split("test_doğruluk: ")[1])
    l5 = float(rows[4].split("kayıp: ")[1].split()[0])
    W(run, "soru.txt", f"""DonanımHaber Forum › Yazılım Geliştirme › Python / Yapay Zeka
Konu: PyTorch — doğruluk yüksek ama kayıp bir türlü düşmüyor

emre_yzl · Üye

Selamlar, 64 boyutlu özellik vektörlerinden (el yazısı rakamlar, 10 sınıf) tahmin yapan basit bir model yazdım.
Doğruluk gayet iyi, test doğruluğu %{pct_tr(te_acc)} ama kayıp bir türlü düşmüyor: 5. epoch'ta {l5:.2f},
20. epoch'ta hâlâ {tr_loss:.2f} (test kaybı {te_loss:.2f}). Normalde bu doğrulukta kaybın 0'a yakın olması
gerekmiyor mu? Kayıp grafiğini hocama gösterince "bu model öğrenmiyor" dedi, ama doğruluk artıyor?

Kod ve çıktı aşağıda, yardımcı olursanız çok sevinirim.

[train.py ve cikti.txt eklendi]
""")
    truth(run, "double_softmax",
          f"Test doğruluğu %{pct_tr(te_acc)} ama kayıp {tr_loss:.2f} civarında takılıyor, 0'a yaklaşmıyor; model öğrenmiyor mu?",
          "The model ends in nn.Softmax(dim=1) and its output goes into nn.CrossEntropyLoss, which applies log-softmax "
          f"again: the loss is bounded below by ln(9+e)-1=1.461 and flattens at {tr_loss:.3f} although train "
          "accuracy is ~0.99.")


# ============================================================================ run07
def run07():
    """label_misalignment (X and y shuffled with different permutations), Vietnamese Facebook group; train.py + log."""
    run = "run07"
    X, y = mixture(8000, 32, 4, seed=7, per_class=2, sep=1.2)
    wd = scratch()
    os.makedirs(os.path.join(wd, "features"))
    np.savez(os.path.join(wd, "features", "la_cay.npz"), X=X, y=y)
    out, exc = exec_script(os.path.join(SCRIPTS, "run07_train.py"), wd)
    assert exc is None, out
    copy_script(run, "run07_train.py", "train.py")
    W(run, "log.txt", "(venv) C:\\Users\\Admin\\do_an\\benh_la> python train.py\n" + out)
    rows = [ln for ln in out.splitlines() if ln.startswith("Epoch")]
    vacc = [float(r.split("val_acc ")[1].split()[0]) for r in rows]
    loss = [float(r.split("| loss ")[1].split()[0]) for r in rows]
    vloss = [float(r.split("val_loss ")[1].split()[0]) for r in rows]
    W(run, "post.txt", f"""Diễn đàn Machine Learning cơ bản (Facebook group)
Nguyễn Minh Thư · 2 giờ ·

[Hỏi đáp] Mọi người ơi cho em hỏi với ạ 😭😭
Em đang làm bài tập lớn phân loại 4 loại bệnh trên lá cây, đặc trưng màu sắc + texture em đã trích sẵn
(8000 mẫu, 32 chiều, 4 lớp khá cân bằng). Train {len(rows)} epoch mà val_acc cứ loanh quanh {min(vacc):.2f}-{max(vacc):.2f},
loss thì {min(loss):.2f}-{max(max(loss), max(vloss)):.2f}, model như kiểu đoán mò vậy. Em kiểm tra rồi, grad_norm vẫn khác 0 nên chắc
không phải model không cập nhật. Em không biết sai ở đâu nữa.
Code với log em để dưới comment ạ. Em cảm ơn mọi người nhiều!!
#pytorch #help #machinelearning

👍 12   💬 7 bình luận
""")
    truth(run, "label_misalignment",
          f"Train {len(rows)} epoch mà val_acc cứ loanh quanh {min(vacc):.2f}-{max(vacc):.2f}, loss quanh 1.35-1.41, "
          "model như đoán mò; không biết sai ở đâu.",
          "train.py 'shuffles' with two different permutations, X = X[rng.permutation(n)] and y = y[rng.permutation(n)], "
          "so inputs and labels are no longer paired: loss stays near ln4=1.386, val accuracy at chance (~0.25) "
          "with non-zero grad norm, train loss only creeping down by memorisation.")


# ============================================================================ run08
def run08():
    """nan_in_data, Indonesian SO-clone question; long log + df.info()/describe(), no code."""
    run = "run08"
    rng = np.random.default_rng(8)
    Z, y = mixture(4000, 8, 3, seed=8, per_class=2, sep=1.3)
    cols = ["suhu_1", "suhu_2", "kelembapan", "tekanan", "getaran_x", "getaran_y", "arus", "tegangan"]
    mu = np.array([61.0, 58.5, 46.0, 101.3, 0.52, 0.47, 12.4, 220.0])
    sd = np.array([7.5, 6.8, 9.0, 1.6, 0.11, 0.10, 2.4, 4.2])
    Z = (Z - Z.mean(0)) / Z.std(0)
    raw = (Z.astype(np.float64) * sd + mu).round(3)
    nan_rows = rng.choice(4000, size=7, replace=False)
    raw[nan_rows, 7] = np.nan                      # empty cells in the logger export
    # pandas-style standardisation (mean/std skip NaN, NaN stays NaN)
    m_, s_ = np.nanmean(raw, 0), np.nanstd(raw, 0, ddof=1)
    Xn = ((raw - m_) / s_).astype(np.float32)
    idx = rng.permutation(4000)
    tr, va = idx[:3200], idx[3200:]
    Xt, yt, Xv, yv = map(torch.tensor, (Xn[tr], y[tr], Xn[va], y[va]))
    torch.manual_seed(8)
    model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    now = clock(dt.datetime(2024, 6, 11, 19, 22, 4))
    bs, epochs = 32, 10
    nb = len(Xt) // bs
    lines = ["$ python latih_mlp.py --data data/sensor_mesin.csv --epochs 10 --lr 0.001 --batch-size 32",
             f"[{now():%Y-%m-%d %H:%M:%S}] Memuat data: data/sensor_mesin.csv -> 4000 baris, 8 fitur, 3 kelas",
             f"[{now():%Y-%m-%d %H:%M:%S}] Normalisasi: (df - df.mean()) / df.std()",
             f"[{now():%Y-%m-%d %H:%M:%S}] Split: train={len(Xt)}, val={len(Xv)}",
             f"[{now():%Y-%m-%d %H:%M:%S}] Model: MLP 8-64-64-3 | optimizer: Adam(lr=0.001) | device: cpu"]
    warned = False
    first_nan = None
    last_logged = None
    summaries = []
    for ep in range(1, epochs + 1):
        model.train()
        t0 = time.time()
        perm = torch.randperm(len(Xt))
        L, C, n = 0.0, 0, 0
        for bi in range(nb):
            b = perm[bi * bs:(bi + 1) * bs]
            out = model(Xt[b])
            loss = F.cross_entropy(out, yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            L += loss.item() * len(b)
            C += (out.argmax(1) == yt[b]).sum().item()
            n += len(b)
            if torch.isnan(loss) and not warned:
                warned = True
                first_nan = (ep, bi + 1)
                lines.append(f"[{now():%Y-%m-%d %H:%M:%S}] PERINGATAN: loss bernilai nan di epoch {ep} batch {bi + 1}")
            if (bi + 1) % 5 == 0:
                if not torch.isnan(loss):
                    last_logged = (bi + 1, loss.item())
                lines.append(f"[{now():%Y-%m-%d %H:%M:%S}] Epoch {ep}/{epochs} | Batch {bi + 1:3d}/{nb} | "
                             f"loss: {loss.item():.4f} | akurasi: {C / n:.4f}")
        vl, vacc = evaluate(model, Xv, yv)
        summaries.append((ep, L / n, vl, vacc))
        lines.append(f"[{now():%Y-%m-%d %H:%M:%S}] ==> Epoch {ep} selesai | loss rata-rata: {L / n:.4f} | akurasi: "
                     f"{C / n:.4f} | val_loss: {vl:.4f} | val_akurasi: {vacc:.4f} | waktu: {time.time() - t0:.1f} detik")
    lines.append(f"[{now():%Y-%m-%d %H:%M:%S}] Selesai. Model disimpan ke model_mesin.pt")
    W(run, "train_log.txt", "\n".join(lines))
    assert first_nan is not None and first_nan[0] == 1 and first_nan[1] > 5, first_nan

    # what the user saw when checking the data frame
    df = np.column_stack([raw, y.astype(np.float64)])
    info = ["<class 'pandas.core.frame.DataFrame'>", "RangeIndex: 4000 entries, 0 to 3999",
            "Data columns (total 9 columns):", " #   Column      Non-Null Count  Dtype  ",
            "---  ------      --------------  -----  "]
    for i, c in enumerate(cols + ["label"]):
        nn_count = int(np.sum(~np.isnan(df[:, i])))
        info.append(f" {i}   {c:<11} {nn_count} non-null   {'int64' if c == 'label' else 'float64'}")
    mem = (4000 * 9 * 8 + 132) / 1024
    info += ["dtypes: float64(8), int64(1)", f"memory usage: {mem:.1f} KB"]
    desc = [f"{'':<11}{'count':>8}{'mean':>10}{'std':>9}{'min':>9}{'25%':>9}{'50%':>9}{'75%':>9}{'max':>9}"]
    for i, c in enumerate(cols + ["label"]):
        v = df[:, i][~np.isnan(df[:, i])]
        q = np.percentile(v, [25, 50, 75])
        desc.append(f"{c:<11}{len(v):>8.1f}{v.mean():>10.3f}{v.std(ddof=1):>9.3f}{v.min():>9.3f}{q[0]:>9.3f}"
                    f"{q[1]:>9.3f}{q[2]:>9.3f}{v.max():>9.3f}")
    head = ["   " + "  ".join(f"{c:>10}" for c in cols) + "  label"]
    for r in range(5):
        head.append(f"{r:<3}" + "  ".join(f"{raw[r, j]:>10.3f}" for j in range(8)) + f"  {y[r]:>5}")
    W(run, "cek_data.txt", "\n".join([
        ">>> import pandas as pd", '>>> df = pd.read_csv("data/sensor_mesin.csv")', ">>> df.head()",
        *head, ">>> df.info()", *info, ">>> df.describe().T.round(3)", *desc]))

    W(run, "pertanyaan.md", f"""# Loss tiba-tiba jadi `nan` di epoch pertama (PyTorch, data sensor mesin)

**Ditanyakan oleh** dimas_pratama · **Dilihat** 41 kali

Saya melatih MLP untuk klasifikasi kondisi mesin (normal / waspada / rusak) dari 8 sensor (suhu, kelembapan,
tekanan, getaran, arus, tegangan). Datanya 4000 baris dari file CSV hasil export data logger, saya normalisasi
pakai `(df - df.mean()) / df.std()` lalu ubah ke tensor.

Awalnya loss turun normal (batch {last_logged[0]} masih {last_logged[1]:.4f}), tapi di epoch 1 batch {first_nan[1]} muncul peringatan
loss `nan`, dan setelah itu semuanya `nan` terus sampai epoch 10. Akurasi val juga jadi {summaries[-1][3]:.4f} terus.

Yang sudah saya coba: cek `df.info()` dan `df.describe()` (output saya lampirkan di `cek_data.txt`), kelihatannya
nilainya wajar semua, tidak ada yang ekstrem.

Apakah learning rate 0.001 terlalu besar untuk Adam? Atau saya perlu pakai gradient clipping?

Log lengkap: `train_log.txt`

`python` `pytorch` `neural-network` `nan`
""")
    truth(run, "nan_in_data",
          f"Loss tiba-tiba jadi nan di epoch 1 batch {first_nan[1]} padahal awalnya turun normal; apakah learning "
          "rate 0.001 terlalu besar untuk Adam, atau perlu gradient clipping?",
          f"7 empty cells in the 'tegangan' column (df.info shows 3993 non-null) survive the pandas-style "
          f"normalisation as NaN; the first batch containing one (epoch 1, batch {first_nan[1]}) gives a NaN loss "
          f"right after finite, falling losses, and NaN weights from then on.")


# ============================================================================ run09
def run09():
    """eval_mode_forgotten in predict.py, Arabic forum; train.py + predict.py + outputs."""
    run = "run09"
    X, y = mixture(5600, 16, 6, seed=9, per_class=3, sep=1.2)
    wd = scratch()
    os.makedirs(os.path.join(wd, "data"))
    np.savez(os.path.join(wd, "data", "sensors.npz"), X_train=X[:4000], y_train=y[:4000],
             X_val=X[4000:5000], y_val=y[4000:5000])
    np.savez(os.path.join(wd, "data", "sensors_test.npz"), X=X[5000:], y=y[5000:])
    out_t, exc = exec_script(os.path.join(SCRIPTS, "run09_train.py"), wd)
    assert exc is None, out_t
    out_p, exc = exec_script(os.path.join(SCRIPTS, "run09_predict.py"), wd, show_name="predict.py")
    assert exc is None, out_p
    copy_script(run, "run09_train.py", "train.py")
    copy_script(run, "run09_predict.py", "predict.py")
    W(run, "train_output.txt", "$ python train.py\n" + out_t)
    W(run, "predict_output.txt", "$ python predict.py\n" + out_p)
    best = float(out_t.strip().splitlines()[-1].split(":")[-1])
    test = float([ln for ln in out_p.splitlines() if ln.startswith("دقة الاختبار")][0].split(":")[-1])
    p1 = [ln for ln in out_p.splitlines() if ln.startswith("التوقعات (1)")][0].split(":")[-1].strip()
    p2 = [ln for ln in out_p.splitlines() if ln.startswith("التوقعات (2)")][0].split(":")[-1].strip()
    W(run, "post.md", f"""# النموذج ممتاز أثناء التدريب وسيئ بعد التحميل! هل torch.save لا يحفظ الأوزان؟

**بواسطة:** khaled.dev · منتدى المبرمجين العرب › الذكاء الاصطناعي

مرحباً بالجميع،

دربت شبكة لتصنيف إشارات الحساسات إلى {ar(6)} فئات. أثناء التدريب وصلت دقة التحقق إلى {ar(best)} وحفظت أفضل
نموذج بـ `torch.save(model.state_dict(), "best_model.pt")`. لكن عندما أحمّل النموذج في ملف منفصل
`predict.py` وأجربه على بيانات الاختبار (من نفس مصدر البيانات) تنزل الدقة إلى {ar(test)} فقط.

والأغرب: مررت نفس العينات الخمس مرتين متتاليتين فأعطى النموذج توقعات مختلفة!

```
التوقعات (1): {p1}
التوقعات (2): {p2}
```

أعتقد أن الأوزان لا تُحفظ أو لا تُحمّل بشكل صحيح، مع أن `load_state_dict` لا يعطي أي خطأ.
هل يجب أن أحفظ النموذج كاملاً بـ `torch.save(model)` بدلاً من state_dict؟

أرفقت train.py و predict.py والمخرجات. شكراً مقدماً.
""")
    truth(run, "eval_mode_forgotten",
          f"دقة التحقق أثناء التدريب {ar(best)} لكن بعد تحميل النموذج في predict.py تنزل إلى {ar(test)} ونفس العينات "
          "تعطي توقعات مختلفة؛ هل torch.save لا يحفظ الأوزان بشكل صحيح؟",
          "predict.py loads the state_dict correctly but never calls model.eval(): Dropout(0.5) stays active and "
          "BatchNorm uses batch statistics, so test accuracy drops "
          f"({best:.3f} val -> {test:.3f} test) and the same 5 samples get different predictions on two passes.")


# ============================================================================ run10
def run10():
    """label_noise (40% of labels random), Persian forum; config + long log + history.csv."""
    run = "run10"
    X, y = mixture(10000, 16, 5, seed=10, per_class=2, sep=1.5)
    rng = np.random.default_rng(10)
    yn = y.copy()
    m = rng.random(len(y)) < 0.4
    yn[m] = rng.integers(0, 5, m.sum())              # annotations from the field, a large share random
    Xt, yt, Xv, yv = map(torch.tensor, (X[:8000], yn[:8000], X[8000:], yn[8000:]))
    torch.manual_seed(10)
    model = mlp(16, 5, (128, 128))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    bs, epochs = 128, 60
    steps = (len(Xt) + bs - 1) // bs
    now = clock(dt.datetime(2024, 9, 2, 23, 41, 7))
    lines = [f"[{now():%H:%M:%S}] config: config.json",
             f"[{now():%H:%M:%S}] داده‌ها بارگذاری شد: {len(Xt)} نمونه‌ی آموزش، {len(Xv)} نمونه‌ی اعتبارسنجی، 16 ویژگی، 5 کلاس",
             f"[{now():%H:%M:%S}] تعداد پارامترهای مدل: {sum(p.numel() for p in model.parameters()):,}"]
    hist = []
    for ep in range(1, epochs + 1):
        model.train()
        t0 = time.time()
        perm = torch.randperm(len(Xt))
        L = C = 0.0
        for s in range(steps):
            b = perm[s * bs:(s + 1) * bs]
            out = model(Xt[b])
            loss = F.cross_entropy(out, yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            L += loss.item() * len(b)
            C += (out.argmax(1) == yt[b]).sum().item()
            if (s + 1) % 20 == 0:
                lines.append(f"[{now():%H:%M:%S}] Epoch {ep}/{epochs} | گام {s + 1}/{steps} | loss: {loss.item():.4f}")
        vl, va = evaluate(model, Xv, yv)
        hist.append((ep, L / len(Xt), C / len(Xt), vl, va))
        lines.append(f"[{now():%H:%M:%S}] >> Epoch {ep}/{epochs} | loss آموزش: {L / len(Xt):.4f} | دقت آموزش: "
                     f"{C / len(Xt):.4f} | loss اعتبارسنجی: {vl:.4f} | دقت اعتبارسنجی: {va:.4f} | زمان: {time.time() - t0:.1f}s")
    W(run, "log.txt", "\n".join(lines))
    W(run, "history.csv", "epoch,train_loss,train_acc,val_loss,val_acc\n" +
      "\n".join(f"{h[0]},{h[1]:.5f},{h[2]:.5f},{h[3]:.5f},{h[4]:.5f}" for h in hist))
    W(run, "config.json", json.dumps({
        "experiment": "pump_fault_mlp_v4",
        "data": {"csv": "data/pump_vibration_labeled.csv", "n_features": 16, "n_classes": 5,
                 "val_split": 0.2, "standardize": True,
                 "label_column": "fault_type", "label_source": "field_reports_2023"},
        "model": {"hidden": [128, 128], "activation": "relu", "dropout": 0.0},
        "train": {"optimizer": "adam", "lr": 0.001, "batch_size": bs, "epochs": epochs, "weight_decay": 0.0,
                  "seed": 10}}, indent=2, ensure_ascii=False))
    mid = [h for h in hist if 5 <= h[0] <= 30]
    a_lo, a_hi = min(h[2] for h in mid), max(h[2] for h in mid)
    l_lo = min(h[1] for h in mid)
    vmax = max(h[4] for h in hist)
    W(run, "post.md", f"""# چرا دقت آموزش از حدود {fa(round(100 * a_hi))}٪ بالاتر نمیره؟

**نویسنده:** reza_h · انجمن هوش مصنوعی › پرسش و پاسخ

سلام دوستان وقت بخیر

یه MLP ساده برای تشخیص نوع خرابی پمپ (۵ کلاس) از روی {fa(16)} ویژگی ارتعاشی آموزش میدم. داده‌ها رو
از گزارش‌های تعمیرات سال گذشته درآوردیم ({fa(10000)} نمونه، برچسب هر نمونه رو تکنسین همون تعمیر توی فرم
نوشته). مشکل اینه که دقت آموزش از ایپاک {fa(5)} تا {fa(30)} بین {fa(pct(a_lo))}٪ و {fa(pct(a_hi))}٪ می‌مونه و loss آموزش هم پایین‌تر از
{fa(f"{l_lo:.2f}")} نمیاد. دقت اعتبارسنجی هم هیچ‌وقت از {fa(pct(vmax))}٪ بالاتر نرفت. بعد از ایپاک {fa(30)} دقت آموزش یه کم
بالا رفت ولی اعتبارسنجی بدتر شد.

مشکل از کجاست؟ کانفیگ و لاگ کامل و history.csv رو ضمیمه کردم.
""")
    truth(run, "label_noise",
          f"دقت آموزش از حدود {fa(round(100 * a_hi))}٪ بالاتر نمیره و loss آموزش روی {fa(f'{l_lo:.2f}')} گیر کرده؛ مشکل از کجاست؟",
          "40% of all labels were replaced by random classes (field annotations): train accuracy plateaus at "
          f"{a_lo:.2f}-{a_hi:.2f} with a loss floor ~{l_lo:.2f} for ~30 epochs, val accuracy capped at {vmax:.3f}; "
          f"afterwards the model starts memorising (train acc {hist[-1][2]:.3f}, val loss up to {hist[-1][3]:.3f}).")


# ============================================================================ run11
def run11():
    """healthy, Turkish question about noisy per-step loss; train.py + log."""
    run = "run11"
    X, y = mixture(5000, 12, 4, seed=12, per_class=3, sep=1.4)
    X = X * np.array([1, 10, 100, 0.1] * 3, dtype=np.float32) + np.float32(5)   # raw units before scaling
    wd = scratch()
    os.makedirs(os.path.join(wd, "veri"))
    np.savez(os.path.join(wd, "veri", "musteri.npz"), X_egitim=X[:4000], y_egitim=y[:4000],
             X_dogrulama=X[4000:], y_dogrulama=y[4000:])
    out, exc = exec_script(os.path.join(SCRIPTS, "run11_train.py"), wd)
    assert exc is None, out
    copy_script(run, "run11_train.py", "train.py")
    W(run, "log.txt", "$ python train.py\n" + out)
    steps = [float(ln.split("kayıp: ")[1]) for ln in out.splitlines() if ln.strip().startswith("adım")]
    eps = [ln for ln in out.splitlines() if ln.startswith("Epoch")]
    avg = [float(e.split("ort. kayıp: ")[1].split()[0]) for e in eps]
    dacc = float(eps[-1].split("doğrulama doğruluğu: ")[1].split()[0])
    late = steps[len(steps) // 2:]
    W(run, "soru.md", f"""**Konu: Adım adım kayıp çok zıplıyor, normal mi? (PyTorch)**
*yazan: selin.akb · Yapay Zeka / Veri Bilimi bölümü*

Merhaba, müşteri segmenti tahmini için (4 sınıf, 12 özellik) küçük bir MLP eğittim. Epoch ortalaması düzenli
düşüyor ({avg[0]:.4f} → {avg[-1]:.4f}), doğrulama doğruluğu da %{pct_tr(dacc)}. Ama her 25 adımda bir yazdırdığım
kayıp değerleri çok zıplıyor: eğitimin ikinci yarısında bile {min(late):.4f} ile {max(late):.4f} arasında gidip
geliyor. Bu normal mi, yoksa learning rate mi yüksek? Batch size'ı büyütmem gerekir mi?

Kod ve log ektedir, şimdiden teşekkürler.
""")
    truth(run, "healthy",
          f"Epoch ortalaması düzenli düşüyor ama adım bazındaki kayıp {min(late):.4f} ile {max(late):.4f} arasında "
          "zıplıyor; bu normal mi, yoksa learning rate mi yüksek?",
          f"Properly standardised data, Adam 1e-3, batch 32: mean epoch loss falls {avg[0]:.3f} -> {avg[-1]:.3f} and "
          f"validation accuracy is {dacc:.3f}; per-step loss scatter is ordinary mini-batch noise. Nothing is wrong.")


# ============================================================================ run12
def run12():
    """overfitting, Arabic forum; long training.log + metrics.csv, no code."""
    run = "run12"
    X, y = mixture(1000, 30, 4, seed=13, per_class=3, sep=0.6)
    Xt, yt, Xv, yv = map(torch.tensor, (X[:300], y[:300], X[300:700], y[300:700]))
    torch.manual_seed(13)
    model = mlp(30, 4, (512, 512))
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    now = clock(dt.datetime(2024, 5, 2, 10, 14, 3))
    lines = [f"{now():%Y-%m-%d %H:%M:%S} | INFO | عينات التدريب: {len(Xt)} | عينات التحقق: {len(Xv)} | الميزات: 30 | الفئات: 4",
             f"{now():%Y-%m-%d %H:%M:%S} | INFO | النموذج: MLP [30, 512, 512, 4] | المعاملات: "
             f"{sum(p.numel() for p in model.parameters()):,}",
             f"{now():%Y-%m-%d %H:%M:%S} | INFO | المحسّن: Adam lr=0.0003 | حجم الدفعة: 32 | الحقب: 60"]
    hist = []
    for ep in range(1, 61):
        model.train()
        perm = torch.randperm(len(Xt))
        L = C = 0.0
        for i in range(0, len(Xt), 32):
            b = perm[i:i + 32]
            out = model(Xt[b])
            loss = F.cross_entropy(out, yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            L += loss.item() * len(b)
            C += (out.argmax(1) == yt[b]).sum().item()
        vl, va = evaluate(model, Xv, yv)
        hist.append((ep, L / len(Xt), C / len(Xt), vl, va))
        lines.append(f"{now():%Y-%m-%d %H:%M:%S} | INFO | الحقبة {ep}/60 | خسارة التدريب: {L / len(Xt):.4f} | "
                     f"دقة التدريب: {C / len(Xt):.4f} | خسارة التحقق: {vl:.4f} | دقة التحقق: {va:.4f}")
        if ep % 10 == 0:
            lines.append(f"{now():%Y-%m-%d %H:%M:%S} | INFO | تم حفظ نقطة التفتيش: ckpt/epoch_{ep:03d}.pt")
    W(run, "training.log", "\n".join(lines))
    W(run, "metrics.csv", "epoch,train_loss,train_acc,val_loss,val_acc\n" +
      "\n".join(f"{h[0]},{h[1]:.6f},{h[2]:.4f},{h[3]:.6f},{h[4]:.4f}" for h in hist))
    bm = min(hist, key=lambda h: h[3])
    W(run, "post.md", f"""# خسارة التحقق ترتفع بينما خسارة التدريب تنخفض.. ما السبب؟

**العضو:** m.alharbi · منتدى علوم البيانات العربي

السلام عليكم،

أدرب نموذج MLP لتصنيف ملفات الزبائن إلى {ar(4)} فئات. لدي {ar(300)} عينة تدريب فقط و{ar(400)} عينة تحقق،
و{ar(30)} ميزة لكل عينة. المشكلة أن خسارة التحقق تنخفض حتى الحقبة {ar(bm[0])} تقريباً (أقل قيمة {ar(f"{bm[3]:.3f}")})
ثم تبدأ بالارتفاع حتى تصل إلى {ar(f"{hist[-1][3]:.3f}")} في الحقبة {ar(60)}، بينما خسارة التدريب تستمر في النزول
ودقة التدريب أصبحت {ar(f"{hist[-1][2]:.2f}")}.

ما السبب؟ وأي نقطة تفتيش أستخدم في النهاية؟ أرفقت السجل الكامل و metrics.csv.
""")
    truth(run, "overfitting",
          f"خسارة التحقق تنخفض حتى الحقبة {ar(bm[0])} ثم ترتفع بينما خسارة التدريب تستمر في النزول؛ ما السبب؟",
          f"A 512x512 MLP (~280k params) on only 300 training samples for 60 epochs: train loss -> "
          f"{hist[-1][1]:.4f}, train acc 1.0, while val loss bottoms at {bm[3]:.3f} (epoch {bm[0]}) and climbs to "
          f"{hist[-1][3]:.3f}.")


# ============================================================================ main
def main():
    t0 = time.time()
    if os.path.isdir(RUNS):
        shutil.rmtree(RUNS)
    os.makedirs(RUNS)
    for fn in (run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12):
        t = time.time()
        np.random.seed(0)
        torch.manual_seed(0)
        fn()
        print(f"{fn.__name__}: {time.time() - t:.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(dict(sorted(TRUTH.items())), f, indent=2, ensure_ascii=False)
    print(f"total: {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
