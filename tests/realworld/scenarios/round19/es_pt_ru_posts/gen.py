#!/usr/bin/env python
"""Generator for the round-19 'es/pt/ru Q&A posts' runs.

Every run is a real (small, CPU-only) PyTorch training: the user script in src/runNN.py is
executed as `train.py` in a scratch folder with the current interpreter (sys.executable), its
console output is captured, and the run folder runs/runNN/ is written with what a user would
paste into a question on es.stackoverflow / pt.stackoverflow / ru.stackoverflow / Хабр Q&A:
question.md (title, prose, pasted output), plus for some runs train.py and log/CSV files.
truth.json (next to this file) holds the planted fault, the user's complaint and how it was planted.

Run:  python gen.py          (deterministic seeds; about 2 minutes on one CPU thread)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
RUNS = os.path.join(HERE, "runs")


# --------------------------------------------------------------------------- helpers

def execute(name, fake_home):
    """Run src/<name>.py as train.py in a scratch dir; return (stdout, stderr, rc, workdir)."""
    wd = tempfile.mkdtemp(prefix="gen_")
    shutil.copy(os.path.join(SRC, name + ".py"), os.path.join(wd, "train.py"))
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    p = subprocess.run([sys.executable, "train.py"], cwd=wd, capture_output=True, text=True,
                       env=env, timeout=600)
    out, err = p.stdout, p.stderr
    # a user pastes paths from their own machine: hide this generator's scratch/venv paths
    site = re.compile(r'File "[^"]*?/site-packages/')
    out = out.replace(wd, fake_home)
    err = err.replace(os.path.realpath(wd), fake_home).replace(wd, fake_home)
    err = site.sub(f'File "{fake_home.rsplit("/", 1)[0]}/.venv/lib/python3.11/site-packages/', err)
    err = re.sub(r'File "/(?:usr|opt)[^"]*/lib/python3\.\d+/', 'File "/usr/lib/python3.11/', err)
    return out, err, p.returncode, wd


def src_text(name):
    with open(os.path.join(SRC, name + ".py"), encoding="utf-8") as f:
        return f.read()


def between(text, start, end):
    """Lines from the first line containing `start` to the next line containing `end`."""
    lines = text.splitlines()
    i = next(k for k, l in enumerate(lines) if start in l)
    j = next(k for k in range(i, len(lines)) if end in lines[k])
    return "\n".join(lines[i:j + 1])


def trim(lines, head, tail, gap="..."):
    if len(lines) <= head + tail + 1:
        return lines
    return lines[:head] + [gap] + lines[-tail:]


def epoch_lines(out, key):
    return [l for l in out.splitlines() if l.startswith(key)]


def nums(line, label):
    m = re.search(re.escape(label) + r"\s*[:=]?\s*(-?[0-9.]+(?:e[-+]?\d+)?|nan|inf)", line)
    return float(m.group(1)) if m else None


def write(run, fname, text):
    d = os.path.join(RUNS, run)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, fname), "w", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + "\n")


def ship_file(run, wd, fname, dest=None):
    shutil.copy(os.path.join(wd, fname), os.path.join(RUNS, run, dest or fname))


def ship_train(run, name):
    write(run, "train.py", src_text(name))


def block(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```"


# --------------------------------------------------------------------------- runs

TRUTH = {}
CHECKS = {}


def run01():
    name = "run01"
    out, err, rc, wd = execute(name, "/home/artem/work/tabular")
    ep = epoch_lines(out, "Эпоха")
    code = between(src_text(name), "model = nn.Sequential(", "optimizer = torch.optim")
    write(name, "question.md", f"""# Loss сначала падает, а потом скачет и растёт — простая MLP на PyTorch

Обучаю полносвязную сеть на табличных данных: 20 признаков (стандартизированы), 5 классов,
2400 объектов в трейне и 600 в валидации, батч 64, 30 эпох.

Модель и оптимизатор:

{block(code, "python")}

В первые десятки шагов loss нормально уменьшается, а потом начинает прыгать и уже не
опускается: к концу обучения средний loss за эпоху около {nums(ep[-1], 'потеря'):.1f}, на валидации ещё больше, хотя
точность при этом держится в районе 0.85–0.89. Больше эпох не помогает. Вывод:

{block(chr(10).join(ep))}

Loss и норму градиента на каждом шаге пишу в `log.txt` (приложил). Что не так с обучением?
""")
    ship_file(name, wd, "log.txt")
    TRUTH[name] = dict(
        truth="lr_too_high",
        symptom="Loss сначала падает, а потом начинает скакать и держится около 2–3, на валидации ещё хуже, больше эпох не помогает.",
        how="SGD(momentum=0.9) with lr=1.0 on a Tanh MLP over standardised features (a sane lr is ~0.01-0.05): "
            "per-step loss falls for ~10 steps, then jumps to 4-5 with grad-norm spikes and oscillates for the rest of the run.")
    CHECKS[name] = (out, err, rc, wd)


def run02():
    name = "run02"
    out, err, rc, wd = execute(name, "/home/lucia/proyectos/figuras")
    ep = epoch_lines(out, "Época")
    write(name, "question.md", f"""# La pérdida sube en cada época en vez de bajar (CNN en PyTorch)

Hola, estoy entrenando una CNN pequeña para clasificar figuras simples (cuadrado, cruz, barras,
etc., 6 clases) en imágenes de 20x20 que genero yo mismo. Uso SGD con lr=0.001 y momentum 0.9,
batch de 50, 20 épocas.

El problema es que la pérdida empieza en {nums(ep[0], 'pérdida'):.2f} y después en vez de bajar va subiendo
cada vez más (termina en {nums(ep[-1], 'pérdida'):.1f}), y la precisión se queda en ~0.17, o sea, como tirar un dado.
También imprimo la norma del gradiente y crece muchísimo. Ya revisé que las etiquetas
correspondan a las imágenes y están bien.

Esta es la salida:

{block(chr(10).join(ep))}

El código completo está en `train.py`. ¿Alguien sabe qué puede estar pasando?
""")
    ship_train(name, name)
    TRUTH[name] = dict(
        truth="missing_zero_grad",
        symptom="La pérdida sube en cada época en vez de bajar, la precisión se queda en ~0.17 (azar) y la norma del gradiente crece muchísimo.",
        how="opt.zero_grad() is called once before the epoch loop instead of every step, so gradients accumulate "
            "across all steps (SGD lr=1e-3, momentum 0.9, small CNN): grad norm 3 -> 130, loss 1.76 -> ~28, accuracy at chance.")
    CHECKS[name] = (out, err, rc, wd)


def run03():
    name = "run03"
    out, err, rc, wd = execute(name, "/home/rafael/projetos/atividade")
    ep = epoch_lines(out, "Época")
    write(name, "question.md", f"""# Rede neural não aprende: perda parada em ~1.09 e acurácia de ~35% (3 classes)

Estou tentando classificar a atividade da pessoa (parado / andando / correndo) a partir de
features extraídas do acelerômetro (média, desvio, frequência de passo, energia, pico e mais
5 do giroscópio). Pelos gráficos que fiz as classes são bem separadas, a média da aceleração
sozinha já separa quase tudo. Mas a rede não sai do lugar: a perda fica em torno de 1.09–1.10
desde a primeira época e a acurácia de validação fica entre 0.35 e 0.40.

Saída do treino (25 épocas, Adam lr=1e-3):

{block(chr(10).join(ep))}

O script inteiro está em `train.py`. O que pode estar errado?
""")
    ship_train(name, name)
    TRUTH[name] = dict(
        truth="label_misalignment",
        symptom="A rede não aprende: a perda fica parada em ~1.09 e a acurácia em ~35% com 3 classes, mesmo as classes sendo bem separadas.",
        how="X and y are shuffled with two independent np.random.shuffle calls before the train/val split, destroying "
            "the pairing; loss sits at ln 3 = 1.099 (train creeps to 1.06 by memorising), val accuracy ~0.35-0.40. "
            "Without the separate shuffle the same script reaches 0.99 val accuracy.")
    CHECKS[name] = (out, err, rc, wd)


def run04():
    name = "run04"
    out, err, rc, wd = execute(name, "/home/diego/cnn")
    ep = epoch_lines(out, "Época")
    write(name, "question.md", f"""# ¿Este entrenamiento está bien? Primera CNN en PyTorch con imágenes 16x16

Es la primera vez que entreno una CNN con PyTorch y no tengo claro cómo interpretar los
números. El dataset son 4000 imágenes en escala de grises de 16x16 (10 clases) para
entrenamiento y 1000 para validación. La red tiene dos capas convolucionales (16 y 32 filtros,
con max pooling) y dos lineales, Adam con lr=1e-3, batch de 64, 12 épocas.

{block(chr(10).join(ep))}

¿Está bien así o me falta algo? Me preocupa un poco que la val_pérdida suba en la época 10
(de {nums(ep[8], 'val_pérdida'):.4f} a {nums(ep[9], 'val_pérdida'):.4f}) y que en las primeras épocas la validación dé mejor que el entrenamiento.
""")
    TRUTH[name] = dict(
        truth="healthy",
        symptom="¿Está bien este entrenamiento? Me preocupa que la val_pérdida suba un poco en la época 10.",
        how="No fault: small CNN, Adam 1e-3, inputs in [0,1], proper zero_grad/eval; train and val loss fall together "
            "to ~0.02-0.03, val accuracy 0.78 -> 0.99; the epoch-10 val blip is noise.")
    CHECKS[name] = (out, err, rc, wd)


def run05():
    name = "run05"
    out, err, rc, wd = execute(name, "/home/ksenia/emb_clf")
    ep = epoch_lines(out, "Эпоха")
    cm = out[out.index("Матрица ошибок"):].strip()
    shown = trim(ep, 12, 6)
    write(name, "question.md", f"""# Точность упёрлась в 0.60 и не растёт, а потом валидация начинает падать

Классифицирую объекты на 10 классов по 32-мерным эмбеддингам (их заранее считает другая
модель). Обучающая выборка 6000, валидационная 1000. Разметка — из нашего внутреннего
сервиса, её делали несколько человек. Модель — MLP 32→128→64→10, Adam lr=1e-3, батч 64.

Что бы я ни делал, первые ~20 эпох точность и на трейне, и на валидации стоит ровно на
~0.60, loss около 1.5. Потом трейн начинает медленно расти, а валидация падает:

{block(chr(10).join(shown))}

Матрица ошибок на валидации в конце обучения:

{block(cm)}

Пробовал добавлять слои — становится только хуже на валидации. Почему модель не может
выучиться выше 60%?
""")
    TRUTH[name] = dict(
        truth="label_noise",
        symptom="Точность на трейне и валидации упёрлась в 0.60 и не растёт, loss около 1.5, а потом валидация начинает падать.",
        how="45% of the labels (train and val) are replaced by a uniformly random class when the data are built "
            "(clean 10-class Gaussian clusters); train accuracy is capped at ~0.606 with loss floor ~1.5 for ~20 epochs, "
            "then rises slowly as the MLP memorises the wrong labels while val accuracy falls 0.60 -> 0.53; "
            "the confusion matrix has a spread-out off-diagonal.")
    CHECKS[name] = (out, err, rc, wd)


def run06():
    name = "run06"
    out, err, rc, wd = execute(name, "/home/beatriz/nlp/classificador")
    ep = epoch_lines(out, "Época")
    write(name, "question.md", f"""# Perda e acurácia idênticas em todas as épocas (GRU com embeddings pré-treinados)

Tenho um classificador de textos (4 classes) com Embedding → GRU → Linear. Carrego os
embeddings pré-treinados no `nn.Embedding` e treino com Adam (lr=2e-3). O problema: nada muda
de uma época para outra. A perda fica em {nums(ep[0], 'perda'):.3f} e a acurácia de teste é exatamente
{nums(ep[0], 'acurácia_teste'):.4f} em todas as épocas. Coloquei um print da norma do gradiente e ela dá 0.

{block(chr(10).join(ep))}

Antes dava um erro no `backward()` e consegui contornar, mas agora simplesmente não treina.
O código está em `train.py`. Alguém sabe o que está acontecendo?
""")
    ship_train(name, name)
    TRUTH[name] = dict(
        truth="frozen_parameters",
        symptom="A perda e a acurácia ficam idênticas em todas as épocas e a norma do gradiente dá 0.",
        how="The loop meant to freeze the pre-trained embedding runs over model.parameters(), freezing every "
            "parameter; the resulting 'does not require grad' error was silenced with perda.requires_grad = True, "
            "so backward gives no gradients: grad norm 0.0000, loss 1.404 and test accuracy 0.1920 identical every epoch.")
    CHECKS[name] = (out, err, rc, wd)


def run07():
    name = "run07"
    out, err, rc, wd = execute(name, "/home/martin/churn")
    ep = epoch_lines(out, "Época")
    head = out[:out.index("Proporción")].rstrip()
    prop = [l for l in out.splitlines() if l.startswith("Proporción")][0]
    code = between(src_text(name), "df = pd.get_dummies", "X_va, y_va = torch.tensor")
    write(name, "question.md", f"""# Precisión de 100% en validación desde la primera época, ¿es normal?

Estoy haciendo un modelo de fuga de clientes (churn) con una exportación del CRM: 5000
clientes, la columna objetivo es `baja` (1 = el cliente se dio de baja). Así se ven los datos:

{block(head)}

`{prop}`

Preprocesado y separación:

{block(code, "python")}

Red: 2 capas ocultas (32 y 16) con dropout, BCEWithLogitsLoss, RMSprop lr=1e-3. Resultado:

{block(chr(10).join(ep))}

Ya en la primera época la validación da {nums(ep[0], 'val_exactitud'):.3f} y luego 1.000, incluso mejor que el
entrenamiento. Me parece demasiado bueno para ser verdad. ¿Está bien o hay algo mal?
""")
    TRUTH[name] = dict(
        truth="data_leakage",
        symptom="Mi modelo de churn da 99.7% de precisión en validación desde la primera época y luego 100%, mejor que en entrenamiento; parece demasiado bueno.",
        how="The CRM column motivo_baja (cancellation reason, filled only for customers who already left) is one-hot "
            "encoded into the features, so the target leaks into the inputs; val accuracy 0.997 at epoch 1 and 1.000 after, "
            "val loss below train loss. Without that column the same net reaches ~0.73-0.75.")
    CHECKS[name] = (out, err, rc, wd)


def run08():
    name = "run08"
    out, err, rc, wd = execute(name, "/home/joao/mlp")
    ep = epoch_lines(out, "Época")
    code = between(src_text(name), "class Rede(nn.Module):", "otimizador = torch.optim")
    write(name, "question.md", f"""# Perda não desce de ~1.49 mesmo com 96% de acurácia no treino

Estou treinando uma MLP simples para classificar imagens 16x16 (achatadas em 256 valores) em
10 classes: 5000 de treino e 1000 de validação, batch 100, 30 épocas. A acurácia sobe
normalmente, mas a perda para em torno de {nums(ep[-1], 'perda'):.2f} e não desce mais, nem no treino. Em outros
exemplos que vi a perda chega perto de zero. A rede:

{block(code, "python")}

Saída:

{block(chr(10).join(ep))}

Por que a perda fica travada nesse valor? Devo treinar por mais épocas ou aumentar o lr?
""")
    TRUTH[name] = dict(
        truth="double_softmax",
        symptom="A perda não desce de ~1.49 nem no treino, mesmo com a acurácia de treino em 96%.",
        how="The model ends in nn.Softmax(dim=1) and its probabilities are fed to nn.CrossEntropyLoss, which applies "
            "log_softmax again; train loss floors at ~1.49 (bound log(1+9/e)=1.46) while train acc reaches 0.97, val acc 0.83 "
            "(the same net without the Softmax reaches loss ~0.002, val acc 0.85).")
    CHECKS[name] = (out, err, rc, wd)


def run09():
    name = "run09"
    out, err, rc, wd = execute(name, "/home/dmitry/projects/load_forecast")
    pasted = out.rstrip() + "\n" + err.rstrip()
    last = err.strip().splitlines()[-1]
    write(name, "question.md", f"""# RuntimeError: stack expects each tensor to be equal size в DataLoader (LSTM, временной ряд)

Делаю прогноз почасовой нагрузки на 12 часов вперёд по окну из 48 предыдущих значений
(LSTM + линейный слой). Нарезаю ряд на окна своим `Dataset`, шаг между окнами 4. Обучение
идёт несколько шагов, а потом в середине первой эпохи всё падает:

{block(pasted)}

Не понимаю, откуда берётся тензор другого размера — окно у меня везде 48, горизонт 12.
Полный код в `train.py`. Как это исправить?
""")
    ship_train(name, name)
    TRUTH[name] = dict(
        truth="shape_mismatch",
        symptom=f"Обучение LSTM падает посреди первой эпохи с '{last}'.",
        how="The window loop runs i over range(0, len(ryad) - okno, shag) without subtracting the horizon, so the last "
            "windows' targets ryad[i+okno : i+okno+gorizont] are cut to 8 and 4 values; default_collate's torch.stack "
            "fails when a shuffled batch contains one (real traceback after 15 logged steps of epoch 1).")
    CHECKS[name] = (out, err, rc, wd)


def run10():
    name = "run10"
    out, err, rc, wd = execute(name, "/home/olga/scoring")
    ep = epoch_lines(out, "Epoch")
    write(name, "question.md", f"""# val_loss растёт после 15-й эпохи, а loss на трейне уходит в ноль

Датасет небольшой: 500 объектов, 40 числовых признаков, бинарная классификация
(350 в трейне, 150 в валидации). Сеть 40→512→512→256→2 с ReLU, Adam lr=1e-4, батч 32,
150 эпох. Цикл обучения сделал по образцу, чтобы вывод был как в Keras:

{block(chr(10).join(ep))}

Точность на трейне 100%, val_accuracy стоит около 0.85, а val_loss примерно с 15-й эпохи
только растёт и к концу больше чем в два раза выше минимума. Полная история по эпохам — в
`history.csv`. Это нормально, или я что-то неправильно считаю на валидации?
""")
    ship_file(name, wd, "history.csv")
    TRUTH[name] = dict(
        truth="overfitting",
        symptom="Loss на трейне уходит в ноль и точность 100%, а val_loss примерно с 15-й эпохи только растёт.",
        how="A 40->512->512->256->2 MLP (~420k parameters) with no regularisation or early stopping trained for 150 epochs "
            "on 350 samples of which only 6 features matter: val loss falls to its minimum ~0.36 at epoch 13 and then "
            "rises steadily to ~0.74 while train loss goes to ~1e-4 and train acc to 1.0.")
    CHECKS[name] = (out, err, rc, wd)


def run11():
    name = "run11"
    out, err, rc, wd = execute(name, "/home/camila/credito")
    ep = epoch_lines(out, "Época")
    desc = out[:out.index("Época")].rstrip()
    tr = [nums(l, "| pérdida") for l in ep[1:]]
    te = [nums(l, "pérdida_test") for l in ep]
    acc = [nums(l, "precisión_test") for l in ep]
    write(name, "question.md", f"""# Pérdida enorme e inestable, la precisión no pasa de ~0.70 (clasificación de créditos)

Tengo un clasificador de aprobación de créditos (aprobado sí/no) con 6 variables numéricas.
Resumen de los datos:

{block(desc)}

Uso una red pequeña (6→32→16→2), Adam lr=1e-3, batch 64, 40 épocas. La pérdida empieza en
{nums(ep[0], 'pérdida'):.1f} y después no baja de forma estable: salta entre {min(tr):.1f} y {max(tr):.1f} en entrenamiento y
llega hasta {max(te):.1f} en test, y la precisión de test va y viene entre {min(acc):.2f} y {max(acc):.2f}:

{block(chr(10).join(trim(ep, 14, 6)))}

Esperaba por lo menos un 80%, porque las variables tienen bastante que ver con la aprobación.
¿Qué estoy haciendo mal con la red? El script está en `train.py`.
""")
    ship_train(name, name)
    TRUTH[name] = dict(
        truth="unnormalized_inputs",
        symptom="La pérdida empieza enorme y luego salta de un lado a otro sin bajar, y la precisión de test va y viene entre 0.5 y 0.7.",
        how="Raw features are fed to the MLP with no scaling (ingreso_anual ~4.5e4, deuda_total ~3e4, score ~650 next to "
            "uso_credito ~0.4): first-epoch loss ~38, loss oscillating 4-10 and test accuracy 0.48-0.72 for 40 epochs. "
            "The same script with train-set standardisation reaches loss 0.23 and test accuracy ~0.90.")
    CHECKS[name] = (out, err, rc, wd)


def run12():
    name = "run12"
    out, err, rc, wd = execute(name, "/home/paulo/estudos/luas")
    ep = epoch_lines(out, "Passo")
    write(name, "question.md", f"""# A perda de treino oscila muito entre os passos, isso é normal?

Estou estudando redes neurais com um dataset tipo `make_moons` (2 features, 2 classes,
ruído 0.35; 2400 pontos de treino e 600 de validação). MLP 2→32→32→2 com Tanh, SGD com
lr=0.05, batch de 16, 2000 passos. Logo a cada 10 passos em `metricas.csv` e imprimo a cada 100:

{block(chr(10).join(ep))}

A perda de treino fica pulando (às vezes 0.27, às vezes 0.44) e a validação melhora bem devagar,
de {nums(ep[0], 'perda_val'):.3f} para {nums(ep[-1], 'perda_val'):.3f}. Está tudo ok com esse treino ou tem algo errado? O código
está em `train.py`.
""")
    ship_train(name, name)
    ship_file(name, wd, "metricas.csv")
    TRUTH[name] = dict(
        truth="healthy",
        symptom="A perda de treino oscila muito entre os passos e a validação melhora bem devagar; está tudo ok?",
        how="No fault: noisy two-moons data (noise 0.35), batch 16, SGD lr 0.05; loss drops from 0.64 to ~0.35 within "
            "~100 steps, then fluctuates with mini-batch noise while val loss keeps improving slowly (0.38 -> 0.34) and "
            "val accuracy climbs 0.83 -> 0.85, tracking train.")
    CHECKS[name] = (out, err, rc, wd)


ALL = [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]


def main():
    only = sys.argv[1:]          # optional: regenerate only some runs, e.g. `python gen.py run03`
    truth_path = os.path.join(HERE, "truth.json")
    if only:
        for r in only:
            shutil.rmtree(os.path.join(RUNS, r), ignore_errors=True)
        if os.path.exists(truth_path):
            with open(truth_path, encoding="utf-8") as f:
                TRUTH.update(json.load(f))
    elif os.path.isdir(RUNS):
        shutil.rmtree(RUNS)
    os.makedirs(RUNS, exist_ok=True)
    for fn in ALL:
        if only and fn.__name__ not in only:
            continue
        fn()
        out, err, rc, wd = CHECKS[fn.__name__]
        status = "ok" if rc == 0 else f"rc={rc} ({err.strip().splitlines()[-1]})"
        print(f"{fn.__name__}: {TRUTH[fn.__name__]['truth']:<20s} {status}", flush=True)
        if rc != 0 and fn.__name__ != "run09":
            print(err, file=sys.stderr)
            raise SystemExit(f"{fn.__name__} failed")
        shutil.rmtree(wd, ignore_errors=True)
    with open(truth_path, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(TRUTH.items())), f, ensure_ascii=False, indent=2)


if __name__ == "__main__":
    main()
