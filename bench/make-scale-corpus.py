#!/usr/bin/env python3
"""The 10,000-tweet scale corpus: 10,000 tweets (v1.1 search/tweets pages) with
10,400 distinct photos (mostly 320x240, every 50th 1200x800) and 100 distinct
avatars (400x400), 10,500 images in all, written as files an nginx origin serves
at the paths `tweetcache fetch --mirror pbs.twimg.com=http://127.0.0.1:PORT` asks for.

Deterministic (fixed seed). Needs numpy and Pillow.

Usage: make-scale-corpus.py OUT_DIR [--tweets 10000]
Writes OUT_DIR/media/<id> (JPEG, as /media/<id>?format=jpg&name=orig is served),
OUT_DIR/profile_images/<n>/u<n>_400x400.jpg, OUT_DIR/results.json.
"""
import argparse
import json
import os
import random

import numpy as np
from PIL import Image

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--tweets", type=int, default=10_000)
args = parser.parse_args()
rng = np.random.default_rng(20261124)
random.seed(20261124)
os.makedirs(os.path.join(args.out, "media"), exist_ok=True)


def photo(width, height, k):
    """A photo-like image: smooth colour fields, a few shapes, sensor-like noise."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    base = np.stack([
        128 + 90 * np.sin(x / (37 + k % 23) + k) * np.cos(y / (29 + k % 17)),
        128 + 80 * np.sin((x + y) / (53 + k % 31) + 2 * k),
        128 + 70 * np.cos(x / (41 + k % 19) - y / (61 + k % 13)),
    ], axis=-1)
    for _ in range(6):
        cx, cy, r = rng.integers(0, width), rng.integers(0, height), rng.integers(8, max(9, width // 4))
        mask = (x - cx) ** 2 + (y - cy) ** 2 < r * r
        base[mask] = base[mask] * 0.4 + rng.integers(0, 255, 3) * 0.6
    base += rng.normal(0, 9, base.shape)
    return Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")


users = [{"id_str": str(500 + n), "screen_name": f"user{n}", "name": f"User {n}",
          "profile_image_url_https": f"https://pbs.twimg.com/profile_images/{n}/u{n}_normal.jpg"} for n in range(100)]
for n in range(100):
    folder = os.path.join(args.out, "profile_images", str(n))
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"u{n}_400x400.jpg")
    if not os.path.exists(path):
        photo(400, 400, 10_000 + n).save(path, quality=85)

statuses = []
photo_number = 0
for t in range(args.tweets):
    count = 2 if t % 25 == 0 else 1  # 400 tweets with two photos
    media = []
    for _ in range(count):
        name = f"S{photo_number:06d}"
        path = os.path.join(args.out, "media", name)
        if not os.path.exists(path):
            big = photo_number % 50 == 0
            photo(1200 if big else 320, 800 if big else 240, photo_number).save(path, "JPEG", quality=85)
        media.append({"id_str": str(9_000_000 + photo_number), "type": "photo",
                      "media_url_https": f"https://pbs.twimg.com/media/{name}.jpg",
                      "url": f"https://t.co/m{photo_number}", "indices": [0, 0]})
        photo_number += 1
    statuses.append({
        "id_str": str(1_000_000 + t), "created_at": "Sun Nov 22 06:00:00 +0000 2026",
        "full_text": f"scale tweet {t} #scale", "user": users[t % 100],
        "entities": {"hashtags": [{"text": "scale", "indices": [len(f"scale tweet {t} "), len(f"scale tweet {t} #scale")]}],
                     "urls": [], "user_mentions": []},
        "extended_entities": {"media": media},
    })
with open(os.path.join(args.out, "results.json"), "w") as f:
    json.dump({"statuses": statuses, "search_metadata": {"query": "#scale", "count": len(statuses)}}, f)
print(f"{len(statuses)} tweets, {photo_number} photos, 100 avatars in {args.out}")
