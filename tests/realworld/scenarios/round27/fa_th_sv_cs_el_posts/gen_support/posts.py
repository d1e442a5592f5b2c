"""User-visible files (posts, logs, configs) for each run, formatted from the real training results."""
import os, re, datetime as dt
from .common import write

FA = str.maketrans("0123456789.", "۰۱۲۳۴۵۶۷۸۹٫")


def fa(x):
    return str(x).translate(FA)


def ts(base, sec, fmt="%Y-%m-%d %H:%M:%S"):
    t = base + dt.timedelta(seconds=sec)
    return t.strftime(fmt)


def ms(base, sec):
    t = base + dt.timedelta(seconds=sec)
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{t.microsecond // 1000:03d}"


def grab(pattern, text, cast=float):
    return [cast(m) for m in re.findall(pattern, text)]


# ---------------------------------------------------------------- run01 (sv) resume_mismatch
def run01(R, d):
    r = R["r01"]
    out1 = r["out1"] + "slurmstepd: error: *** JOB 48213 ON gpu-node07 CANCELLED AT 2024-04-16T21:47:09 DUE TO PREEMPTION ***\n"
    out2 = r["out2"]
    write(f"{d}/train.py", r["src"])
    write(f"{d}/slurm-48213.out", "+ python train.py\n" + out1)
    write(f"{d}/slurm-48291.out", "+ python train.py --resume checkpoints/last.pt\n" + out2)
    va = dict((int(e), float(v)) for e, v in re.findall(r"== epoch (\d+) .*?val_loss (\d+\.\d+)", out1 + out2))
    acc = dict((int(e), float(v)) for e, v in re.findall(r"== epoch (\d+) .*?val_acc (\d+\.\d+)", out1 + out2))
    worst = max(range(6, 12), key=lambda e: va[e])
    post = f"""**Flashback Forum › Data och IT › Programmering › AI och maskininlärning**

### PyTorch: valideringen blir sämre efter omstart från checkpoint

**erik_lund** skrev 2024-04-17, 09:12

Hej!

Sitter med ett litet rekommendationsprojekt (MLP på färdiga features, 8 klasser) som jag kör på universitetets SLURM-kluster. Första jobbet (48213) blev avbrutet efter epok 5 eftersom någon med högre prio tog noden, så jag körde bara samma skript igen med `--resume checkpoints/last.pt`.

Problemet: innan avbrottet såg allt bra ut, val_loss gick ner till {va[5]:.4f} (val_acc {acc[5]:.4f}). Efter omstarten blir det först lite bättre, men sen blir valideringen sämre i flera epoker, värst i epok {worst} med val_loss {va[worst]:.4f} (val_acc {acc[worst]:.4f}), och det tar ett tag innan den är tillbaka. Slutresultatet blev val_loss {va[11]:.4f}.

```
== epoch 05 done in ... | val_loss {va[5]:.4f} val_acc {acc[5]:.4f}     <- före avbrottet
== epoch 06 done in ... | val_loss {va[6]:.4f} val_acc {acc[6]:.4f}
== epoch 07 done in ... | val_loss {va[7]:.4f} val_acc {acc[7]:.4f}
== epoch 08 done in ... | val_loss {va[8]:.4f} val_acc {acc[8]:.4f}
```

Jag trodde att hela poängen med checkpoints var att man kan fortsätta precis där man var? Vad kan det bero på? Bifogar train.py och båda slurm-loggarna (samma kod, samma data).

/Erik

---
**Bifogade filer:** train.py, slurm-48213.out, slurm-48291.out
"""
    write(f"{d}/post.md", post)
    sym = f"Efter att jobbet startats om från checkpointen blir valideringen sämre i flera epoker (val_loss {va[5]:.2f} före avbrottet, {va[worst]:.2f} i epok {worst}). Vad kan det bero på?"
    lr_before = re.findall(r"step +(\d+) .*? lr (\S+)", r["out1"])[-1]
    lr_after = re.findall(r"step +(\d+) .*? lr (\S+)", out2)[0]
    how = ("The resume path loads only model weights; AdamW state and the LambdaLR warm-up+cosine schedule are rebuilt from scratch, "
           f"so the lr falls from {lr_before[1]} (step {lr_before[0]}, mid-cosine) to {lr_after[1]} at step {lr_after[0]} and warms up again to the 4e-3 peak; "
           f"val_loss worsens after the resume (up to {va[worst]:.3f} in epoch {worst}).")
    return "resume_mismatch", sym, how


# ---------------------------------------------------------------- run02 (cs) zero_variance_statistic
def run02(R, d):
    r = R["r02"]
    write(f"{d}/train.py", r["src"])
    write(f"{d}/vystup.txt", "(venv) petr@kocour:~/projekty/senzory$ python train.py\n" + r["out"])
    losses = grab(r"epoch 1 batch +\d+/\d+ loss (\d+\.\d+)", r["out"])
    post = f"""**AbcLinuxu › Poradna › Programování**

## PyTorch – loss je po první epoše `nan`

*Dotaz od: petr_h | 12. 3. 2024 21:40*

Zdravím,

učím jednoduchou plně propojenou síť na datech ze senzorů (24 kanálů, 5 tříd, asi 1300 řádků). Senzory mají úplně jiné rozsahy (některé jdou do stovek), tak si každou dávku normalizuju přímo ve smyčce.

První epocha vypadá normálně, loss klesá z {losses[0]:.2f} na {losses[-1]:.2f}, ale na konci první epochy najednou `nan` a od té doby je všechno `nan`, accuracy spadne na 0.186. Myslel jsem, že mi exploduje gradient, tak jsem přidal `clip_grad_norm_(…, max_norm=1.0)`, ale vůbec to nepomohlo. Mám zkusit menší learning rate, nebo jiný optimizer?

Přikládám celý skript a výstup z konzole.

Díky za rady.

*Přílohy: train.py, vystup.txt*
"""
    write(f"{d}/post.md", post)
    sym = "Po první epoše mi loss skočí na nan a už tam zůstane, i když jsem přidal gradient clipping. Exploduje mi gradient?"
    how = ("The dataset has 64*20+1 rows, so the last batch of every epoch holds one sample; the per-batch standardisation "
           "x.std(dim=0) over one row is NaN (UserWarning 'std(): degrees of freedom is <= 0'), giving a NaN loss at the last batch of epoch 1 and NaN weights from then on.")
    return "zero_variance_statistic", sym, how


# ---------------------------------------------------------------- run03 (th) label_out_of_range
def run03(R, d):
    r = R["r03"]
    post = f"""**กลุ่ม Facebook: PyTorch & Deep Learning Thailand**

**Somchai Rattanakul** · 3 ชม. · 🌏

สวัสดีครับทุกคน มือใหม่ครับ 🙏

ผมเขียนโค้ด train โมเดลง่ายๆ (MLP 2 ชั้น) จากไฟล์ csv ที่ทีมส่งมา มี 16 features กับ 10 คลาส แต่พอรันปุ๊บมันพังทันทีตอนคำนวณ loss เลยครับ ยังไม่ทันได้ train สักรอบ ลองหาใน Google มาครึ่งวันแล้วยังไม่เข้าใจ ใช้ torch 2.13 บน Ubuntu ครับ

```
(dl) somchai@ws01:~/work/cls$ python train.py
{r["out"].rstrip()}
```

ช่วยดูให้หน่อยครับว่าผิดตรงไหน ขอบคุณล่วงหน้าครับ 🙏🙏

👍 4 · 💬 0
"""
    write(f"{d}/post.md", post)
    sym = "รันแล้วพังทันทีด้วย IndexError ตอนคำนวณ loss ครับ ยังไม่ทันได้ train สักรอบ ไม่รู้ว่าผิดตรงไหน"
    how = ("The CSV labels are 1..10 (1-based) while the model has NUM_CLASSES=10 outputs; CrossEntropyLoss raises "
           "'IndexError: Target 10 is out of bounds.' on the first batch.")
    return "label_out_of_range", sym, how


# ---------------------------------------------------------------- run04 (el) data_not_shuffled
def run04(R, d):
    r = R["r04"]
    base = dt.datetime(2024, 3, 11, 14, 2, 11, 118000)
    L = [f"{ms(base, 0)} | INFO | config:",
         "  seed: 404", "  data:", "    train: data/events_train.parquet", "    val: data/events_val.parquet",
         "    num_classes: 6", "  model:", "    type: mlp", "    hidden: [128, 128]", "    activation: relu",
         "  loader:", "    batch_size: 50", "    shuffle: false", "    num_workers: 2", "  optim:", "    name: sgd",
         "    lr: 0.05", "    momentum: 0.9", "    weight_decay: 1.0e-4", "  epochs: 10", "  log_every: 5",
         f"{ms(base, 0.12)} | INFO | train samples: {r['n_train']} | val samples: {r['n_val']} | steps/epoch: {r['steps_per_epoch']}"]
    ei = 0
    for s in r["steps"]:
        L.append(f"{ms(base, 0.2 + s['t'])} | INFO | ep {s['epoch']:2d} | step {s['step']:5d} | loss {s['loss']:.4f} | grad_norm {s['gn']:.3f} | lr 0.0500")
        e = r["epochs"][ei] if ei < len(r["epochs"]) else None
        if e and s["step"] == e["step"]:
            L.append(f"{ms(base, 0.2 + e['t'])} | INFO | === epoch {e['epoch']} done | val_loss {e['val_loss']:.4f} | val_acc {e['val_acc']:.4f}")
            ei += 1
    L.append(f"{ms(base, 0.3 + r['epochs'][-1]['t'])} | INFO | saved checkpoints/last.ckpt")
    write(f"{d}/train.log", "\n".join(L) + "\n")
    st = r["steps"]
    ex = [s for s in st if 61 <= s["step"] <= 130]
    excerpt = "\n".join(f"ep {s['epoch']:2d} | step {s['step']:5d} | loss {s['loss']:.4f}" for s in ex[::2])
    hi = max(s["loss"] for s in st)
    va = r["epochs"][0]["val_acc"]
    post = f"""**Discord · Ελληνική Κοινότητα Machine Learning · #βοήθεια-pytorch**

**nikos_k** — Σήμερα στις 14:21
Παιδιά μια βοήθεια 🙏 Εκπαιδεύω ένα MLP για κατηγοριοποίηση συμβάντων από αισθητήρες (6 κλάσεις, {r['n_train']} δείγματα) και το loss κάνει σαν πριόνι: πέφτει σχεδόν στο 0 και μετά πετάγεται ξαφνικά στο 5-6 (έφτασε και {hi:.1f}), ξανά και ξανά. Το val accuracy είναι κολλημένο στο {va:.4f} σε ΟΛΑ τα epochs 😩

**nikos_k** — Σήμερα στις 14:22
```
{excerpt}
```
ολόκληρο το log 👉 train.log

**eleni.p** — Σήμερα στις 14:30
αυτό με το ίδιο ακριβώς val acc σε κάθε epoch είναι περίεργο. Τι optimizer έχεις;

**nikos_k** — Σήμερα στις 14:31
SGD με momentum 0.9, lr 0.05. Μήπως το learning rate είναι πολύ μεγάλο και γι' αυτό τινάζεται το loss; Να το κατεβάσω στο 0.005;
"""
    write(f"{d}/post.md", post)
    sym = f"Το loss κάνει σαν πριόνι (πέφτει σχεδόν στο 0 και πετάγεται στο 5-6) και το val accuracy μένει κολλημένο στο {va:.2f}. Μήπως το learning rate είναι πολύ μεγάλο;"
    how = ("The training set is stored ordered by label and the loader runs with shuffle: false, so every batch holds one class; "
           "the loss drops to ~0 inside each class block and spikes at every class boundary, a saw-tooth that repeats each epoch, and the model ends each epoch predicting the last class (val_acc constant).")
    return "data_not_shuffled", sym, how


# ---------------------------------------------------------------- run05 (fa) double_softmax
def run05(R, d):
    r = R["r05"]
    write(f"{d}/train.py", r["src"])
    write(f"{d}/log_lr0.001.txt", "$ python train.py --lr 1e-3\n" + r["out_a"])
    write(f"{d}/log_lr0.01.txt", "$ python train.py --lr 1e-2\n" + r["out_b"])
    la = grab(r"\| loss: (\d+\.\d+)", r["out_a"]); lb = grab(r"\| loss: (\d+\.\d+)", r["out_b"])
    vaa = grab(r"val_acc: (\d+\.\d+)", r["out_a"])
    post = f"""**گروه تلگرام «PyTorch فارسی»**

**رضا م.** ‏[۱۴:۰۷]
سلام بچه‌ها، وقتتون بخیر 🌹
یه classifier ساده با PyTorch نوشتم برای ۱۰ تا کلاس (داده‌ی جدولی، ۳۰ تا feature). مشکلم اینه که loss از حدود {fa(f"{la[-1]:.1f}")} پایین‌تر نمیاد. اولش از {fa(f"{la[0]:.2f}")} شروع میشه، یه کم کم میشه و بعد عملاً ثابت می‌مونه. آخر کار accuracy روی validation حدود {fa(f"{vaa[-1]*100:.0f}")}٪ ـه.

فکر کردم learning rate کمه، برای همین از 1e-3 بردمش روی 1e-2 ولی بدتر شد و loss رسید به حدود {fa(f"{lb[-1]:.1f}")}. 🤦‍♂️
کد و لاگ هر دو اجرا رو گذاشتم. کسی می‌دونه چرا loss انقدر بالا می‌مونه؟ باید lr رو بازم عوض کنم یا scheduler بذارم؟

📎 train.py
📎 log_lr0.001.txt
📎 log_lr0.01.txt
"""
    write(f"{d}/post.md", post)
    sym = f"loss مدل از حدود {fa(f'{la[-1]:.1f}')} پایین‌تر نمیاد؛ فکر کردم learning rate کمه ولی با بیشتر کردنش به 1e-2 بدتر هم شد."
    how = ("The model's forward() returns F.softmax(...) and the loss is nn.CrossEntropyLoss, which applies log_softmax again; "
           f"the loss floors near {la[-1]:.2f} (far above 0, close to the double-softmax minimum ln(9+e)-1≈1.46) while accuracy is decent, and a 10x lr does not help.")
    return "double_softmax", sym, how


# ---------------------------------------------------------------- run06 (sv) eval_mode_forgotten
def run06(R, d):
    r = R["r06"]; tr = r["train"]
    write(f"{d}/predict.py", r["src"])
    L = [f"Net(n_in=40, n_hidden=256, n_out=8, p_drop=0.5) | optimizer Adam lr=1e-3 | batch 128",
         f"train: {tr['n_train']}  val: {tr['n_val']}"]
    for x in tr["rows"]:
        L.append(f"epoch {x['epoch']:2d}/15  loss {x['loss']:.4f}  acc {x['acc']:.4f}  val_loss {x['val_loss']:.4f}  val_acc {x['val_acc']:.4f}  [{x['t']:.1f}s]"
                 + ("  * saved checkpoints/best.pt" if x["saved"] else ""))
    L.append(f"best val_acc {tr['best']:.4f}")
    write(f"{d}/train_log.txt", "\n".join(L) + "\n")
    write(f"{d}/predict_output.txt", "anna@mbp kod % python predict.py data/val.npz\n" + r["p1"] +
          "anna@mbp kod % python predict.py data/val.npz\n" + r["p2"])
    a1 = float(re.search(r"accuracy = (\d\.\d+)", r["p1"]).group(1)); a2 = float(re.search(r"accuracy = (\d\.\d+)", r["p2"]).group(1))
    best = tr["best"] * 100
    sv = lambda v: f"{v:.1f}".replace(".", ",")
    post = f"""**Slack · #ml-hjälp (Kodkollektivet Göteborg)**

**Anna Berg** 10:42
Hej! Har en fråga om något jag inte förstår alls 😅
Har tränat en klassificerare (8 klasser, MLP med BatchNorm + Dropout). Under träningen får jag bästa val_acc {sv(best)} % och sparar den som `checkpoints/best.pt`.
Men när jag laddar samma checkpoint i `predict.py` och kör på *exakt samma* valideringsfil (`data/val.npz`) får jag {sv(a1*100)} %. Och körde jag en gång till blev det {sv(a2*100)} %, alltså inte ens samma siffra två gånger på rad?!

**Anna Berg** 10:43
predict.py, träningsloggen och utskriften från predict ligger i tråden 👇
📎 predict.py  📎 train_log.txt  📎 predict_output.txt

**Johan K** 10:51
sparar du state_dict eller hela modellen?

**Anna Berg** 10:53
state_dict, `torch.save(model.state_dict(), "checkpoints/best.pt")` när val_acc blir bättre. Vad gör jag för fel?
"""
    write(f"{d}/post.md", post)
    sym = f"Under träningen får jag {sv(best)} % på valideringen, men predict.py på exakt samma valideringsfil ger {sv(a1*100)} % och {sv(a2*100)} %, alltså olika varje gång. Vad gör jag för fel?"
    how = ("predict.py loads the checkpoint and runs under torch.no_grad() but never calls model.eval(): Dropout(0.5) stays active and BatchNorm uses the "
           f"statistics of each 16-sample batch, so accuracy on the very val file drops from {tr['best']:.3f} to {a1:.3f}/{a2:.3f} and differs between runs.")
    return "eval_mode_forgotten", sym, how


# ---------------------------------------------------------------- run07 (cs) data_leakage
PREP07 = '''import numpy as np
import pandas as pd

RNG = np.random.default_rng(707)
N_COPIES = 5        # augmentace: kazdy radek 5x s malym sumem, at ma sit vic dat
NOISE_STD = 0.02

df = pd.read_csv("data/mereni_2023.csv")
X = df[[f"m{i}" for i in range(16)]].to_numpy(np.float32)
y = df["trida"].to_numpy()

X_aug = np.concatenate([X + RNG.normal(0, NOISE_STD, size=X.shape) for _ in range(N_COPIES)]).astype(np.float32)
y_aug = np.concatenate([y] * N_COPIES)

idx = RNG.permutation(len(X_aug))
cut = int(0.8 * len(X_aug))
np.savez("data/train.npz", X=X_aug[idx[:cut]], y=y_aug[idx[:cut]])
np.savez("data/val.npz", X=X_aug[idx[cut:]], y=y_aug[idx[cut:]])
print(f"{len(X)} puvodnich radku -> {len(X_aug)} po augmentaci; train {cut}, val {len(X_aug) - cut}")
'''


def run07(R, d):
    r = R["r07"]
    write(f"{d}/prep.py", PREP07)
    L = ["$ python prep.py", f"{r['n_orig']} puvodnich radku -> {r['n_total']} po augmentaci; train {r['n_train']}, val {r['n_val']}",
         "$ python train.py --epochs 25 --hidden 256 --dropout 0.2",
         "model: MLP(16 -> 256 -> 256 -> 4), dropout 0.2, Adam lr 1e-3, batch 64"]
    for x in r["rows"]:
        L.append(f"Epoch {x['epoch']}/25 - {x['t']:.1f}s - loss: {x['loss']:.4f} - acc: {x['acc']:.4f} - val_loss: {x['val_loss']:.4f} - val_acc: {x['val_acc']:.4f}")
    L.append("saved model.pt")
    L.append("$ python evaluate.py --data data/provoz_2024_05.npz")
    L.append(f"provoz_2024_05: {r['n_test']} vzorku | loss {r['test_loss']:.4f} | acc {r['test_acc']:.4f}")
    write(f"{d}/train_log.txt", "\n".join(L) + "\n")
    last = r["rows"][-1]
    post = f"""**Facebook skupina „Umělá inteligence CZ/SK" – příspěvek**

**Tereza Nováková**

Ahoj všichni, potřebovala bych poradit. Dělám klasifikaci měření z výrobní linky do 4 tříd. Původně jsem měla jen {r['n_orig']} řádků, tak jsem si data rozšířila augmentací (každý řádek 5× s malým šumem) a pak rozdělila na train/val 80/20 – skript `prep.py` přikládám.

Trénink vypadá skvěle: val_acc je od první epochy dokonce vyšší než train acc a na konci mám val_acc {last['val_acc']:.4f} 🎉 Jenže když model pustím na nová data z provozu (květen 2024, {r['n_test']} vzorků), dostanu jen {f"{r['test_acc']*100:.1f}".replace('.', ',')} %.

Jak je to možné? Vedoucí se ptá, kterému číslu má věřit 😬

Přílohy: prep.py, train_log.txt
"""
    write(f"{d}/post.md", post)
    sym = f"Na validaci mám {last['val_acc']*100:.0f} % accuracy, ale na nových datech z provozu jen {r['test_acc']*100:.0f} %. Jak je to možné?"
    how = ("prep.py makes 5 jittered copies (noise std 0.02) of every row and only then splits 80/20, so nearly every val row has near-identical "
           f"twins in train; val_acc exceeds train acc from epoch 1 and reaches {last['val_acc']:.3f}, while genuinely new data gives {r['test_acc']:.3f}.")
    return "data_leakage", sym, how


# ---------------------------------------------------------------- run08 (el) wrong_checkpoint
def run08(R, d):
    r = R["r08"]
    base = dt.datetime(2024, 5, 2, 9, 31, 40)
    L = [f"[{ts(base, 0)}] train.py --config configs/exp07.yaml",
         f"[{ts(base, 0)}] model: DataParallel(Net(d_in=32, hidden=128, classes=10)) params={r['n_params']}",
         f"[{ts(base, 0)}] optimizer: Adam(lr=0.002) batch_size=128 epochs=20"]
    for x in r["rows"]:
        L.append(f"[{ts(base, x['t'])}] epoch {x['epoch']:02d} | train_loss {x['loss']:.4f} | val_loss {x['val_loss']:.4f} | val_acc {x['val_acc']:.4f}")
    L.append(f"[{ts(base, r['rows'][-1]['t'] + 0.2)}] saved runs/exp07/model_final.pth")
    write(f"{d}/train_log.txt", "\n".join(L) + "\n")
    b2 = dt.datetime(2024, 5, 2, 10, 14, 3)
    E = [f"[{ts(b2, 0)}] evaluate.py --ckpt runs/exp07/model_final.pth --split test",
         f"[{ts(b2, 0)}] model: Net(d_in=32, hidden=128, classes=10) params={r['n_params']}",
         f"[{ts(b2, 0.3)}] load_state_dict -> {r['msg']}",
         f"[{ts(b2, 0.4)}] test samples: {r['n_test']}",
         f"[{ts(b2, 0.5)}] test_loss {r['test_loss']:.4f} | test_acc {r['test_acc']:.4f}",
         "per-class acc: " + " ".join(f"{c}:{a:.2f}" for c, a in enumerate(r["per_class"])),
         "pred histogram: " + str(r["pred_counts"])]
    write(f"{d}/eval_output.txt", "\n".join(E) + "\n")
    last = r["rows"][-1]
    post = f"""**dev.gr forum › Τεχνητή Νοημοσύνη & Machine Learning**

#### Το μοντέλο μου πάει τέλεια στο training αλλά σκουπίδια στο evaluation

**Δημήτρης Π.** · 2 Μαΐου 2024, 10:26

Καλημέρα σε όλους,

έχω ένα απλό MLP (10 κλάσεις) που το εκπαίδευσα στο μηχάνημα του εργαστηρίου. Στο τέλος του training το val_acc είναι {last['val_acc']:.4f}, όπως βλέπετε στο train_log.txt.

Μετά τρέχω το evaluate.py πάνω στο test split με το ίδιο checkpoint (`runs/exp07/model_final.pth`) και παίρνω test_acc {r['test_acc']:.4f}, ουσιαστικά τυχαίο για 10 κλάσεις. Το test split είναι από την ίδια πηγή με το val. Το ιστόγραμμα των προβλέψεων είναι πολύ στραβό.

Έχω ξανατρέξει το evaluate 2-3 φορές, ίδιο πράγμα. Επισυνάπτω το log του training και την έξοδο του evaluate. Τι μπορεί να φταίει;

Ευχαριστώ!

📎 train_log.txt · 📎 eval_output.txt
"""
    write(f"{d}/post.md", post)
    sym = f"Στο training το val accuracy έφτασε {last['val_acc']*100:.0f}%, αλλά το evaluate.py με το ίδιο checkpoint δίνει {r['test_acc']*100:.1f}%, σαν τυχαίο. Τι μπορεί να φταίει;"
    how = ("The checkpoint was saved from an nn.DataParallel wrapper (keys 'module.*') and evaluate.py loads it into the bare Net with strict=False: "
           f"every key is reported missing/unexpected, nothing is loaded, and the randomly initialised model scores chance ({r['test_acc']:.3f}).")
    return "wrong_checkpoint", sym, how


# ---------------------------------------------------------------- run09 (th) lr_schedule_bug
def run09(R, d):
    r = R["r09"]
    write(f"{d}/train.py", r["src"])
    write(f"{d}/output.txt", "nattapong@gpu-box:~/shop$ python train.py\n" + r["out"])
    va = grab(r"val_acc=(\d\.\d+)", r["out"])
    post = f"""**Pantip › ห้องโปรแกรมเมอร์ (Programmer)**

## [PyTorch] loss ลดแค่ epoch แรกแล้วนิ่งสนิท ไม่ขยับเลยทั้ง 30 epoch

สมาชิกหมายเลข 6614229

สวัสดีครับ ผมทำโปรเจกต์จบ จำแนกประเภทสินค้า 12 หมวดจาก feature ที่ดึงมาแล้ว (20 features, train 5000 / val 1000) ใช้ MLP 2 ชั้น SGD + momentum

ปัญหาคือ loss ลดลงแค่ช่วงแรกๆ แล้วก็นิ่งสนิทเลยครับ ตั้งแต่ epoch 3 ถึง 30 ค่าเหมือนเดิมทุกทศนิยม val_acc ค้างอยู่ที่ {va[-1]:.4f} ตลอด ผมตั้งใจจะ train ให้นานๆ แล้วค่อยลด lr ทีหลัง แต่มันไม่ไปไหนเลย

แนบโค้ดกับ output มาด้วยครับ รบกวนผู้รู้ช่วยดูทีครับว่าเป็นเพราะอะไร 🙏

แท็ก: Python, Machine Learning, Deep Learning
"""
    write(f"{d}/post.md", post)
    sym = f"loss ลดลงแค่ช่วงแรกแล้วก็นิ่งสนิทตลอด 30 epoch val_acc ค้างที่ {va[-1]:.3f} ไม่ขยับเลยครับ เป็นเพราะอะไร"
    how = ("StepLR(step_size=10, gamma=0.5) is meant per epoch (comment: halve every 10 epochs) but scheduler.step() is called inside the batch loop, "
           "so the lr is halved every 10 batches: 7.8e-4 after epoch 1, ~1e-8 after epoch 3, and the loss freezes at the value reached in the first ~2 epochs.")
    return "lr_schedule_bug", sym, how


# ---------------------------------------------------------------- run10 (fa) optimizer_misconfigured
CFG10 = """experiment: churn_mlp_h{h}
seed: 1010
data:
  path: data/customers_v3.parquet
  features: 24
  num_classes: 6
  val_fraction: 0.2
model:
  type: mlp
  hidden: {h}
  layers: 2
  activation: relu
optim:
  name: adam
  lr: 1.0e-3
  betas: [0.9, 0.999]
  weight_decay: 5.0e-2
train:
  epochs: 20
  batch_size: 128
"""


def run10(R, d):
    out = {}
    for h in (128, 512):
        r = R["r10"][f"h{h}"]
        base = dt.datetime(2024, 6, 2, 18, 40, 12) if h == 128 else dt.datetime(2024, 6, 2, 19, 5, 47)
        L = [f"[{ts(base, 0)}] experiment=churn_mlp_h{h} params={r['n_params']}"]
        t = 0.5
        for x in r["rows"]:
            t += x["t"]
            L.append(f"[{ts(base, t)}] epoch {x['epoch']:02d}/20 | train_loss {x['loss']:.4f} | train_acc {x['acc']:.4f} | "
                     f"val_loss {x['val_loss']:.4f} | val_acc {x['val_acc']:.4f} | grad_norm {x['gn']:.3f} | param_norm {x['w_norm']:.2f}")
        write(f"{d}/train_h{h}.log", "\n".join(L) + "\n")
        out[h] = r["rows"]
    write(f"{d}/config.yaml", CFG10.format(h=128))
    l128 = out[128][-1]["loss"]; l512 = out[512][-1]["loss"]
    v128 = out[128][-1]["val_acc"]; v512 = out[512][-1]["val_acc"]
    post = f"""**انجمن «هوش مصنوعی ایران» › بخش یادگیری عمیق**

### loss روی یه مقدار ثابت گیر کرده، حتی با مدل بزرگ‌تر

**ارسال شده توسط: مریم_ک**

سلام و وقت بخیر.
دارم یه مدل MLP برای پیش‌بینی ریزش مشتری (۶ کلاس، ۲۴ تا feature) آموزش میدم. از حدود epoch ششم به بعد train loss روی {fa(f"{l128:.2f}")} ثابت می‌مونه و val_acc هم حدود {fa(f"{v128*100:.0f}")}٪ ـه و دیگه هیچ تکونی نمی‌خوره.

فکر کردم شاید ظرفیت مدل کمه، برای همین hidden رو از ۱۲۸ به ۵۱۲ بردم (بقیه‌ی config دست نخورده) ولی نتیجه تقریباً عین هم شد: train loss {fa(f"{l512:.2f}")} و val_acc {fa(f"{v512*100:.0f}")}٪. حتی لایه‌ها رو هم زیاد کردم ولی فایده نداشت.

config و لاگ هر دو اجرا رو پیوست کردم. به نظرتون دیگه چی رو باید امتحان کنم؟ ممنون میشم راهنمایی کنید 🙏

پیوست‌ها: config.yaml ، train_h128.log ، train_h512.log
"""
    write(f"{d}/post.md", post)
    sym = f"از حدود epoch ششم loss روی {fa(f'{l128:.2f}')} ثابت می‌مونه؛ hidden رو از ۱۲۸ به ۵۱۲ بردم ولی هیچ فرقی نکرد. دیگه چی رو امتحان کنم؟"
    how = ("optim.weight_decay is 5e-2 on plain Adam (coupled L2 on all weights and biases), about 100x a usual value; the weights are pulled toward zero "
           f"(param_norm shrinks, {out[512][0]['w_norm']:.1f}->{out[512][-1]['w_norm']:.1f} for h512) and both widths plateau at the same train loss (~{l128:.2f}/{l512:.2f}), so a bigger model does not help.")
    return "optimizer_misconfigured", sym, how


# ---------------------------------------------------------------- run11 (th) healthy
def run11(R, d):
    r = R["r11"]
    write(f"{d}/train.py", r["src"])
    write(f"{d}/output.txt", "(torch) pim@lab-pc:~/proj/imu-activity$ python train.py\n" + r["out"])
    tl = grab(r"train_loss (\d+\.\d+)", r["out"]); vl = grab(r"val_loss (\d+\.\d+)", r["out"]); va = grab(r"val_acc (\d+\.\d+)", r["out"])
    post = f"""**กระทู้ในกลุ่ม Discord "Thai NLP & ML" › #help**

**pim.ch** — วันนี้ เวลา 20:14
สวัสดีค่ะ ขอถามหน่อยค่ะ 🙇‍♀️ ทำโมเดลจำแนกท่าทางจาก IMU 7 คลาส ใช้ MLP มี dropout แบ่ง train/val เป็นคนละไฟล์กันตั้งแต่ต้น

ที่แปลกใจคือ val loss ต่ำกว่า train loss ตั้งแต่ epoch แรกจนจบเลยค่ะ (epoch 1: train {tl[0]:.4f} / val {vl[0]:.4f}, epoch 25: train {tl[-1]:.4f} / val {vl[-1]:.4f}) val_acc สุดท้าย {va[-1]:.4f}
อ่านเจอว่าถ้า val ดีกว่า train อาจจะมี data leak แบบนี้ผิดปกติไหมคะ ต้องแก้อะไรหรือเปล่า

แนบ train.py กับ output ไว้ให้ค่ะ 📎 train.py 📎 output.txt
"""
    write(f"{d}/post.md", post)
    sym = "val loss ต่ำกว่า train loss ตั้งแต่ epoch แรกจนจบเลยค่ะ แบบนี้ผิดปกติไหม มี data leak หรือเปล่าคะ"
    how = ("Healthy run: separate train/val files from the same distribution; val loss is below train loss only because dropout 0.4 is active "
           f"when the train loss is accumulated (and it is a running mean over the epoch); val_acc rises steadily to {va[-1]:.3f} with no sign of leakage.")
    return "healthy", sym, how


# ---------------------------------------------------------------- run12 (el) healthy
def run12(R, d):
    r = R["r12"]
    rows = r["rows"]
    write(f"{d}/metrics.csv", "epoch,train_loss,train_acc,val_loss,val_acc\n" +
          "".join(f"{x['epoch']},{x['loss']:.4f},{x['acc']:.4f},{x['val_loss']:.4f},{x['val_acc']:.4f}\n" for x in rows))
    lines = "\n".join(f"epoch {x['epoch']}: loss={x['loss']:.4f} acc={x['acc']:.4f} val_loss={x['val_loss']:.4f} val_acc={x['val_acc']:.4f}" for x in rows)
    post = f"""**Reddit · r/greece · Flair: Τεχνολογία/Προγραμματισμός**

**u/kostas_ds** · πριν από 5 ώρες

**Γιατί το loss ξεκινάει από {r['first_loss']:.2f};**

Καλησπέρα! Κάνω το πρώτο μου project με PyTorch, ταξινόμηση σε 10 κλάσεις (MLP, Adam 1e-3, batch 64). Στο πρώτο batch το loss είναι {r['first_loss']:.4f} και μετά πέφτει κανονικά:

```
step 0: loss={r['first_loss']:.4f}
{lines}
```

Αυτό το {r['first_loss']:.2f} στην αρχή μου φαίνεται πολύ μεγάλο. Μήπως κάνω λάθος στην αρχικοποίηση των βαρών; Ή γενικά είναι εντάξει αυτά τα νούμερα; Ανεβάζω και το metrics.csv.

⬆ 3 · 💬 0 σχόλια
"""
    write(f"{d}/post.md", post)
    sym = f"Το loss στο πρώτο batch είναι {r['first_loss']:.2f} και μετά πέφτει κανονικά. Γιατί ξεκινάει τόσο ψηλά, μήπως είναι λάθος η αρχικοποίηση;"
    how = (f"Healthy run: a 10-class MLP with default init starts at ~ln(10)=2.30 (first batch {r['first_loss']:.3f}), which is the expected chance-level loss; "
           f"loss and val_loss fall steadily to val_acc {rows[-1]['val_acc']:.3f} with a small train/val gap.")
    return "healthy", sym, how


ALL = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]


def write_all(R, RUNS):
    truth = {}
    for i, fn in enumerate(ALL, 1):
        name = f"run{i:02d}"
        d = os.path.join(RUNS, name)
        os.makedirs(d, exist_ok=True)
        t, sym, how = fn(R, d)
        truth[name] = {"truth": t, "symptom": sym, "how": how}
    return truth
