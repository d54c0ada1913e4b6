#!/usr/bin/env python3
"""Writes the PDQ test set: distinct generated photos and their transformed copies.

    bench/pdq-testset.py OUT [--photos 300] [--seed 7]

OUT/originals/pNNNN.jpg are distinct pictures (smooth scenes of shapes, gradients and
noise at sizes from 320 to 2048 px, made with a fixed seed); OUT/<transform>/pNNNN.jpg
are each one transformed: re-encoded at JPEG quality 40, resized to 50%, a caption bar
over 10% of the height, a corner watermark, a horizontal flip, a 90 degree rotation,
and crops of 2% and 5% per edge. Needs numpy and Pillow.
"""
import argparse, os, random
import numpy as np
from PIL import Image, ImageDraw, ImageFont

TRANSFORMS = ["jpeg40", "resize50", "caption", "watermark", "flip", "rotate90", "crop2", "crop5"]


def smooth_noise(rng, h, w, cells):
    grid = rng.random((cells + 1, cells + 1))
    ys = np.linspace(0, cells, h, endpoint=False)
    xs = np.linspace(0, cells, w, endpoint=False)
    y0 = ys.astype(int); x0 = xs.astype(int)
    fy = (ys - y0)[:, None]; fx = (xs - x0)[None, :]
    fy = fy * fy * (3 - 2 * fy); fx = fx * fx * (3 - 2 * fx)
    a = grid[y0][:, x0]; b = grid[y0][:, x0 + 1]; c = grid[y0 + 1][:, x0]; d = grid[y0 + 1][:, x0 + 1]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


def photo(seed):
    rng = np.random.default_rng(seed)
    prng = random.Random(seed)
    w = prng.choice([320, 480, 640, 800, 1024, 1200, 1600, 2048])
    h = int(w * prng.choice([0.5625, 0.75, 1.0, 1.333, 0.667]))
    top, bottom = rng.random(3) * 255, rng.random(3) * 255
    t = np.linspace(0, 1, h)[:, None, None]
    img = top * (1 - t) + bottom * t + np.zeros((h, w, 3))
    for octave, amp in ((3, 90), (9, 45), (27, 20)):
        n = smooth_noise(rng, h, w, octave)
        img += (n[:, :, None] - 0.5) * amp * (rng.random(3) + 0.5)
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(pil)
    for _ in range(prng.randint(3, 12)):
        x0, y0 = prng.randrange(w), prng.randrange(h)
        x1, y1 = x0 + prng.randrange(w // 10, w // 2), y0 + prng.randrange(h // 10, h // 2)
        colour = tuple(prng.randrange(256) for _ in range(3))
        (draw.ellipse if prng.random() < 0.5 else draw.rectangle)([x0, y0, x1, y1], fill=colour)
    grain = rng.normal(0, 4, (h, w, 3))
    return Image.fromarray(np.clip(np.asarray(pil, dtype=np.float64) + grain, 0, 255).astype(np.uint8))


def transform(name, img, seed):
    w, h = img.size
    if name == "jpeg40":
        return img, 40
    if name == "resize50":
        return img.resize((max(1, w // 2), max(1, h // 2)), Image.LANCZOS), 90
    if name == "caption":
        out = img.copy(); d = ImageDraw.Draw(out); bar = max(1, h // 10)
        d.rectangle([0, h - bar, w, h], fill=(255, 255, 255))
        d.text((bar // 3, h - bar + bar // 4), "breaking: look at this", fill=(0, 0, 0),
               font=ImageFont.load_default(size=max(8, bar // 2)))
        return out, 90
    if name == "watermark":
        out = img.convert("RGBA"); layer = Image.new("RGBA", out.size, (0, 0, 0, 0)); d = ImageDraw.Draw(layer)
        size = max(10, w // 12)
        d.text((w - 6 * size, h - 2 * size), "@reposter", fill=(255, 255, 255, 160),
               font=ImageFont.load_default(size=size))
        return Image.alpha_composite(out, layer).convert("RGB"), 90
    if name == "flip":
        return img.transpose(Image.FLIP_LEFT_RIGHT), 90
    if name == "rotate90":
        return img.transpose(Image.ROTATE_90), 90
    if name.startswith("crop"):
        f = int(name[4:]) / 100
        return img.crop((int(w * f), int(h * f), w - int(w * f), h - int(h * f))), 90
    raise ValueError(name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out"); ap.add_argument("--photos", type=int, default=300); ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    for sub in ["originals"] + TRANSFORMS:
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    for i in range(args.photos):
        img = photo(args.seed * 100_003 + i)
        name = f"p{i:04d}.jpg"
        img.save(os.path.join(args.out, "originals", name), quality=90)
        for t in TRANSFORMS:
            out, q = transform(t, img, i)
            out.save(os.path.join(args.out, t, name), quality=q)
    print(f"{args.photos} photos x {len(TRANSFORMS)} transformations in {args.out}")


if __name__ == "__main__":
    main()
