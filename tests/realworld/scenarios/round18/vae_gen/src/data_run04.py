import numpy as np


def write_sensors_csv(path, seed=4):
    rng = np.random.default_rng(seed)
    n = 3000
    cols = ["temp_in", "temp_out", "pressure", "flow", "vib_x", "vib_y", "vib_z", "current", "voltage", "rpm", "humidity", "torque"]
    t = np.arange(n)
    f = np.stack([np.sin(t / 50.0), np.cos(t / 130.0), rng.normal(0, 1, n).cumsum() / 30.0], 1)
    W = rng.normal(0, 1, (3, len(cols)))
    base = np.array([61.0, 48.0, 2.1, 14.0, 0.02, 0.03, 0.01, 7.4, 229.0, 1480.0, 41.0, 33.0])
    scale = np.array([4.0, 3.0, 0.2, 1.5, 0.01, 0.01, 0.005, 0.6, 2.0, 40.0, 5.0, 3.0])
    X = base + scale * (f @ W + 0.1 * rng.normal(0, 1, (n, len(cols))))
    lines = ["timestamp," + ",".join(cols)]
    for i in range(n):
        vals = [f"{v:.4f}" for v in X[i]]
        if i == 1874:
            vals[3] = ""
        if i == 2411:
            vals[9] = ""
        ts = f"2024-03-{1 + i // 1440:02d} {(i % 1440) // 60:02d}:{i % 60:02d}:00"
        lines.append(ts + "," + ",".join(vals))
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
