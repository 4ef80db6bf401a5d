"""Fashion-MNIST ViT recipes in plain PyTorch, for trying a recipe before it becomes a
preset of vit_train (the README's "How the preset was found" table came from it).

The same training as vit_train's fashion preset: per-dataset normalisation, flips and
random erasing (torchvision's RandomErasing boxes, value 0), AdamW (wd 0.05) with one epoch
of linear warm-up and cosine decay to 1e-5, label smoothing 0.1, gradient clipping 1.0,
batch 128. The model: an optional stem of 3x3 convolutions (GELU), Conv2d patches, class
token, positional embedding, nn.TransformerEncoder (pre-LN, GELU FFN), a final LayerNorm
and DLStudio's head on the class token. Prints the test accuracy after every epoch.

    /usr/bin/python3 bench/python/vit_recipe_prototype.py --stem 32 --patch 7 --epochs 5
    /usr/bin/python3 bench/python/vit_recipe_prototype.py --stem 32,64/2,128/2,128/2 --patch 1 --epochs 20
"""
import argparse
import gzip
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

FASHION = "/usr/share/datasets/fashion-mnist/"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--stem", default="32", help='3x3 convolutions, CHANNELS[/STRIDE] each, e.g. "32,64/2"')
    p.add_argument("--patch", type=int, default=7, help="patch side on the stem's output")
    p.add_argument("--embedding-size", type=int, default=128)
    p.add_argument("--encoders", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--ffn-mult", type=int, default=2)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=1.5e-3)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--erase", type=float, default=0.5, help="random erasing probability")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def read_idx(name):
    with gzip.open(FASHION + name) as f:
        data = f.read()
    return np.frombuffer(data, np.uint8, offset=16 if "images" in name else 8)


def load_fashion():
    """Normalised images [N, 1, 28, 28] and labels [N] of both splits."""
    train_x = torch.tensor(read_idx("train-images-idx3-ubyte.gz").reshape(-1, 1, 28, 28)).float() / 255
    test_x = torch.tensor(read_idx("t10k-images-idx3-ubyte.gz").reshape(-1, 1, 28, 28)).float() / 255
    mean, std = train_x.mean(), train_x.std()
    return ((train_x - mean) / std, torch.tensor(read_idx("train-labels-idx1-ubyte.gz")).long(),
            (test_x - mean) / std, torch.tensor(read_idx("t10k-labels-idx1-ubyte.gz")).long())


class ViT(nn.Module):
    def __init__(self, a):
        super().__init__()
        layers, channels, size = [], 1, 28
        for spec in filter(None, a.stem.split(",")):
            out_channels, stride = (int(v) for v in (spec.split("/") + ["1"])[:2])
            layers += [nn.Conv2d(channels, out_channels, 3, stride, 1), nn.GELU()]
            channels, size = out_channels, (size - 1) // stride + 1
        self.stem = nn.Sequential(*layers)
        M = a.embedding_size
        self.patch = nn.Conv2d(channels, M, a.patch, a.patch)
        self.class_token = nn.Parameter(torch.randn(1, 1, M) * 0.02)
        self.position = nn.Parameter(torch.randn(1, (size // a.patch) ** 2, M) * 0.02)
        layer = nn.TransformerEncoderLayer(M, a.heads, a.ffn_mult * M, 0.0, batch_first=True,
                                           norm_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, a.encoders)
        self.norm = nn.LayerNorm(M)
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(M, 512), nn.ReLU(), nn.Linear(512, 10))

    def forward(self, images):  # [B, 1, 28, 28] -> logits [B, 10]
        x = self.patch(self.stem(images)).flatten(2).transpose(1, 2) + self.position  # [B, P, M]
        x = torch.cat([self.class_token.expand(x.size(0), -1, -1), x], 1)
        return self.head(self.norm(self.encoder(x))[:, 0])


def augment(x, erase):
    """Horizontal flips (p 0.5), then torchvision's RandomErasing boxes set to 0."""
    x = x.clone()
    flip = torch.rand(x.size(0)) < 0.5
    x[flip] = x[flip].flip(3)
    for i in range(x.size(0)):
        if np.random.rand() >= erase:
            continue
        for _ in range(10):
            area = 784 * np.random.uniform(0.02, 0.33)
            ratio = math.exp(np.random.uniform(math.log(0.3), math.log(3.3)))
            h, w = int(round(math.sqrt(area * ratio))), int(round(math.sqrt(area / ratio)))
            if h < 28 and w < 28:
                y0, x0 = np.random.randint(0, 28 - h + 1), np.random.randint(0, 28 - w + 1)
                x[i, :, y0:y0 + h, x0:x0 + w] = 0
                break
    return x


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        correct = sum((model(images[i:i + 500]).argmax(1) == labels[i:i + 500]).sum().item()
                      for i in range(0, len(images), 500))
    model.train()
    return 100.0 * correct / len(images)


def main():
    a = parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    np.random.seed(a.seed)
    train_x, train_y, test_x, test_y = load_fashion()
    model = ViT(a)
    print(f"{sum(p.numel() for p in model.parameters())} parameters", flush=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=a.weight_decay)
    steps_per_epoch = math.ceil(len(train_x) / a.batch)
    total, warmup = steps_per_epoch * a.epochs, steps_per_epoch

    def lr_at(step):
        if step < warmup:
            return a.lr * (step + 1) / warmup
        return 1e-5 + (a.lr - 1e-5) * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))

    step, start = 0, time.time()
    for epoch in range(a.epochs):
        order, epoch_start = torch.randperm(len(train_x)), time.time()
        for b in range(steps_per_epoch):
            ids = order[b * a.batch:(b + 1) * a.batch]
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
            loss = F.cross_entropy(model(augment(train_x[ids], a.erase)), train_y[ids], label_smoothing=0.1)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
        print(f"epoch {epoch + 1} test {accuracy(model, test_x, test_y):.2f} loss {loss.item():.3f} "
              f"img/s {len(train_x) / (time.time() - epoch_start):.0f} elapsed {time.time() - start:.0f}",
              flush=True)


if __name__ == "__main__":
    main()
