"""Environment dumps and filler that people paste into issue threads (noise, not evidence)."""
import random

TORCH = [("2.1.2", "12.1", "8.9.2"), ("2.2.1", "12.1", "8.9.2"), ("2.3.1", "12.1", "8.9.2"),
         ("2.4.0", "12.4", "9.1.0"), ("2.4.1", "12.4", "9.1.0"), ("2.5.1", "12.4", "9.1.0")]
GPUS = [("NVIDIA GeForce RTX 3090", 24576), ("NVIDIA A100-SXM4-40GB", 40960), ("NVIDIA GeForce RTX 4090", 24564),
        ("Tesla V100-SXM2-16GB", 16384), ("NVIDIA A10G", 23028), ("NVIDIA RTX A6000", 49140), ("NVIDIA L4", 23034)]
DRIVERS = ["525.147.05", "535.104.05", "535.161.08", "545.23.08", "550.54.15", "550.90.07"]
OSES = ["Ubuntu 22.04.4 LTS (x86_64)", "Ubuntu 20.04.6 LTS (x86_64)", "Debian GNU/Linux 12 (bookworm) (x86_64)",
        "Rocky Linux 8.9 (Green Obsidian) (x86_64)", "Ubuntu 22.04.3 LTS (x86_64)"]
PYS = ["3.10.14", "3.11.9", "3.10.12", "3.9.19", "3.11.7"]
CPUS = [("AMD EPYC 7742 64-Core Processor", 128), ("Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz", 48),
        ("AMD Ryzen 9 5950X 16-Core Processor", 32), ("Intel(R) Core(TM) i9-12900K", 24), ("AMD EPYC 7R32", 96)]


def collect_env(r: random.Random, gpu=True, n_gpu=1, torch_v=None, gpu_name=None):
    tv, cu, cudnn = r.choice(TORCH)
    if torch_v:
        tv, cu, cudnn = next(t for t in TORCH if t[0] == torch_v)
    g, mem = r.choice(GPUS)
    if gpu_name:
        g, mem = next(x for x in GPUS if gpu_name in x[0])
    py = r.choice(PYS)
    osn = r.choice(OSES)
    glibc = {"Ubuntu 22.04": "2.35", "Ubuntu 20.04": "2.31", "Debian": "2.36", "Rocky": "2.28"}
    gl = next(v for k, v in glibc.items() if osn.startswith(k))
    tvis = {"2.1.2": "0.16.2", "2.2.1": "0.17.1", "2.3.1": "0.18.1", "2.4.0": "0.19.0", "2.4.1": "0.19.1", "2.5.1": "0.20.1"}[tv]
    np_v = r.choice(["1.24.4", "1.26.4", "1.26.3", "2.0.1"])
    lines = [
        "Collecting environment information...",
        f"PyTorch version: {tv}+cu{cu.replace('.', '')}" if gpu else f"PyTorch version: {tv}+cpu",
        "Is debug build: False",
        f"CUDA used to build PyTorch: {cu}" if gpu else "CUDA used to build PyTorch: None",
        "ROCM used to build PyTorch: N/A",
        "",
        f"OS: {osn}",
        "GCC version: " + {"2.35": "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0", "2.31": "(Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0", "2.28": "(GCC) 8.5.0 20210514 (Red Hat 8.5.0-20)", "2.36": "(Debian 12.2.0-14) 12.2.0"}[gl],
        "Clang version: Could not collect",
        f"CMake version: version {r.choice(['3.22.1', '3.27.9', '3.28.3'])}",
        f"Libc version: glibc-{gl}",
        "",
        f"Python version: {py} (main, {r.choice(['Apr  6 2024', 'Mar 21 2024', 'Nov 20 2023'])}, 12:08:55) [GCC 11.2.0] (64-bit runtime)",
        f"Python platform: Linux-{r.choice(['5.15.0-105-generic', '6.5.0-35-generic', '5.4.0-182-generic', '6.1.0-18-amd64'])}-x86_64-with-glibc{gl}",
        f"Is CUDA available: {'True' if gpu else 'False'}",
        f"CUDA runtime version: {cu}.{r.choice(['105', '140', '131'])}" if gpu else "CUDA runtime version: No CUDA",
        "CUDA_MODULE_LOADING set to: LAZY",
    ]
    if gpu:
        if n_gpu == 1:
            lines.append(f"GPU models and configuration: GPU 0: {g}")
        else:
            lines.append("GPU models and configuration: ")
            lines += [f"GPU {i}: {g}" for i in range(n_gpu)]
        lines += [f"Nvidia driver version: {r.choice(DRIVERS)}", f"cuDNN version: Probably one of the following:",
                  f"/usr/lib/x86_64-linux-gnu/libcudnn.so.{cudnn}"]
    else:
        lines += ["GPU models and configuration: No CUDA", "Nvidia driver version: No CUDA", "cuDNN version: No CUDA"]
    cpu, ncpu = r.choice(CPUS)
    lines += ["HIP runtime version: N/A", "MIOpen runtime version: N/A", "Is XNNPACK available: True", "",
              "CPU:", "Architecture:                         x86_64",
              f"Model name:                           {cpu}",
              f"CPU(s):                               {ncpu}", "",
              "Versions of relevant libraries:",
              f"[pip3] numpy=={np_v}",
              f"[pip3] torch=={tv}",
              f"[pip3] torchvision=={tvis}",
              f"[pip3] triton=={ {'2.1.2': '2.1.0', '2.2.1': '2.2.0', '2.3.1': '2.3.1', '2.4.0': '3.0.0', '2.4.1': '3.0.0', '2.5.1': '3.1.0'}[tv]}"]
    if r.random() < 0.5:
        lines.append(f"[conda] numpy                     {np_v}          pypi_0    pypi")
        lines.append(f"[conda] torch                     {tv}           pypi_0    pypi")
    return "\n".join(lines)


def nvidia_smi(r: random.Random, n_gpu=1, procs=True, gpu_name=None, when=None):
    g, mem = r.choice(GPUS)
    if gpu_name:
        g, mem = next(x for x in GPUS if gpu_name in x[0])
    drv = r.choice(DRIVERS)
    cu = {"525": "12.0", "535": "12.2", "545": "12.3", "550": "12.4"}[drv[:3]]
    if when is None:
        import datetime as _dt
        when = _dt.datetime(2024, r.randint(3, 10), r.randint(1, 28), r.randint(8, 22), r.randint(0, 59), r.randint(0, 59))
    out = [when.strftime("%a %b %e %H:%M:%S %Y"),
           "+---------------------------------------------------------------------------------------+",
           f"| NVIDIA-SMI {drv}             Driver Version: {drv}     CUDA Version: {cu}     |",
           "|-----------------------------------------+----------------------+----------------------+",
           "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
           "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
           "|                                         |                      |               MIG M. |",
           "|=========================================+======================+======================|"]
    short = g.replace("NVIDIA ", "")[:20]
    used_l = []
    for i in range(n_gpu):
        used = r.randint(900, mem - 500)
        used_l.append(used)
        util = r.randint(0, 100)
        out += [f"|  {i}  {short:<20}           On  | 00000000:{0x17 + i * 0x10:02X}:00.0 Off |                    0 |",
                f"| N/A   {r.randint(31, 78)}C    P0             {r.randint(60, 300):3d}W / {r.choice([300, 350, 400, 450]):3d}W | {used:5d}MiB / {mem:5d}MiB |    {util:3d}%      Default |",
                "|                                         |                      |             Disabled |",
                "+-----------------------------------------+----------------------+----------------------+"]
    if procs:
        out += ["", "+---------------------------------------------------------------------------------------+",
                "| Processes:                                                                            |",
                "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
                "|        ID   ID                                                             Usage      |",
                "|=======================================================================================|"]
        for i in range(n_gpu):
            out.append(f"|    {i}   N/A  N/A    {r.randint(10000, 99999):7d}      C   python                                    {used_l[i] - r.randint(300, 600):5d}MiB |")
        out.append("+---------------------------------------------------------------------------------------+")
    return "\n".join(out)


PKGS = [("absl-py", "2.1.0"), ("accelerate", "0.30.1"), ("aiohttp", "3.9.5"), ("certifi", "2024.2.2"),
        ("charset-normalizer", "3.3.2"), ("contourpy", "1.2.1"), ("datasets", "2.19.1"), ("filelock", "3.14.0"),
        ("fsspec", "2024.3.1"), ("grpcio", "1.63.0"), ("huggingface-hub", "0.23.0"), ("hydra-core", "1.3.2"),
        ("idna", "3.7"), ("Jinja2", "3.1.4"), ("joblib", "1.4.2"), ("lightning", "2.2.4"), ("Markdown", "3.6"),
        ("MarkupSafe", "2.1.5"), ("matplotlib", "3.8.4"), ("mpmath", "1.3.0"), ("networkx", "3.3"),
        ("omegaconf", "2.3.0"), ("packaging", "24.0"), ("pandas", "2.2.2"), ("pillow", "10.3.0"),
        ("protobuf", "4.25.3"), ("psutil", "5.9.8"), ("pyarrow", "16.0.0"), ("python-dateutil", "2.9.0.post0"),
        ("pytz", "2024.1"), ("PyYAML", "6.0.1"), ("requests", "2.31.0"), ("safetensors", "0.4.3"),
        ("scikit-learn", "1.4.2"), ("scipy", "1.13.0"), ("sympy", "1.12"), ("tensorboard", "2.16.2"),
        ("threadpoolctl", "3.5.0"), ("timm", "0.9.16"), ("tokenizers", "0.19.1"), ("torchmetrics", "1.4.0"),
        ("tqdm", "4.66.4"), ("transformers", "4.40.2"), ("typing_extensions", "4.11.0"), ("urllib3", "2.2.1"),
        ("wandb", "0.17.0"), ("Werkzeug", "3.0.3"), ("yarl", "1.9.4")]


def pip_freeze(r: random.Random, torch_v=None, extra=()):
    tv = torch_v or r.choice(TORCH)[0]
    pk = [p for p in PKGS if r.random() < 0.7] + list(extra)
    pk += [("torch", tv), ("numpy", r.choice(["1.24.4", "1.26.4"]))]
    if r.random() < 0.6:
        pk += [("nvidia-cublas-cu12", "12.1.3.1"), ("nvidia-cudnn-cu12", "8.9.2.26"), ("nvidia-nccl-cu12", "2.20.5")]
    pk = sorted(set(pk), key=lambda p: p[0].lower())
    return "\n".join(f"{a}=={b}" for a, b in pk)


PLUS_ONE = ["+1, same here", "Same issue here.", "+1 also seeing this", "Any update on this? Seeing the same thing.",
            "bump, exact same behaviour on my side", "Also hitting this, subscribing."]

STALE = ("This issue has been automatically marked as stale because it has not had recent activity. "
         "It will be closed if no further activity occurs. Thank you for your contributions.")

TEMPLATE_BUG = """### Describe the bug

{desc}

### To Reproduce

{repro}

### Expected behavior

{expected}

### Environment

{env}"""
