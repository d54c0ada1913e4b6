#!/usr/bin/env python3
"""The archive-scale fetch corpus (issue 26): POSTS posts (default 1,000,000) as JSON
Lines of v1.1 search pages, 100 posts a line, as twarc writes a collection; 100,000
distinct photos (320x240 JPEG) and 20,000 avatars (96x96 JPEG), written as files the
shared nginx origin serves at the paths
`tweetcache fetch --mirror pbs.twimg.com=http://127.0.0.1:PORT` asks for.

Photos and authors come in at the rate posts do, so the first N lines are a smaller
collection of the same shape (bench/fetch-scale.sh cuts 10,000 and 100,000 posts
from it): about two posts in three carry a photo, each photo is posted about seven
times (mostly close together, 5% of posts repost an older one), and 20,000 authors
post with Zipf-like frequencies (each new author first seen as the posts go).

Deterministic (fixed seed). Needs numpy and Pillow. About 4 minutes on 2 cores, and
1.9 GB of disk (0.7 GB JSON Lines, 1.2 GB images).

Usage: make-fetch-corpus.py OUT_DIR [--posts 1000000] [--photos 100000] [--authors 20000]
Writes OUT_DIR/posts.jsonl, OUT_DIR/media/<name>, OUT_DIR/profile_images/<n>/u<n>_400x400.jpg.
"""
import argparse
import json
import os
import random
from multiprocessing import Pool

import numpy as np
from PIL import Image

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--posts", type=int, default=1_000_000)
parser.add_argument("--photos", type=int, default=100_000)
parser.add_argument("--authors", type=int, default=20_000)
args = parser.parse_args()
os.makedirs(os.path.join(args.out, "media"), exist_ok=True)

BASES = 32
TEXTURES = []  # per worker process, made once


def base(k):
    """A photo-like texture: smooth colour fields and sensor-like noise."""
    rng = np.random.default_rng(k)
    y, x = np.mgrid[0:240, 0:320].astype(np.float32)
    field = np.stack([
        128 + 90 * np.sin(x / (37 + k % 23) + k) * np.cos(y / (29 + k % 17)),
        128 + 80 * np.sin((x + y) / (53 + k % 31) + 2 * k),
        128 + 70 * np.cos(x / (41 + k % 19) - y / (61 + k % 13)),
    ], axis=-1)
    return field + rng.normal(0, 8, field.shape)


def make_photos(chunk):
    """Photos chunk[0] ..< chunk[1]: a base shifted, tinted and marked per photo, with
    the photo's number drawn in, so every file has bytes of its own."""
    start, end, kind = chunk
    if not TEXTURES:
        TEXTURES.extend(base(k) for k in range(BASES))
    textures = TEXTURES
    for n in range(start, end):
        if kind == "photo":
            path = os.path.join(args.out, "media", f"P{n:06d}")
            size = (320, 240)
        else:
            folder = os.path.join(args.out, "profile_images", str(n))
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"u{n}_400x400.jpg")
            size = (96, 96)
        if os.path.exists(path):
            continue
        t = np.roll(textures[n % BASES], (n * 7) % 240, axis=0)
        t = t * (0.75 + 0.25 * ((n >> 5) % 5) / 4) + ((n * 37) % 60 - 30)
        t[(n % 200):(n % 200) + 8, (n * 3) % 300:(n * 3) % 300 + 16] = (n * 11) % 255
        # The number itself, one 6x6 block a bit: no two files share their bytes.
        for bit in range(20):
            t[228:234, 4 + bit * 8:10 + bit * 8] = 250 if n >> bit & 1 else 5
        image = Image.fromarray(np.clip(t, 0, 255).astype(np.uint8), "RGB")
        if size != (320, 240):
            image = image.resize(size)
        image.save(path, "JPEG", quality=80)


def chunks(count, kind, parts=64):
    step = (count + parts - 1) // parts
    return [(i, min(count, i + step), kind) for i in range(0, count, step)]


with Pool(os.cpu_count()) as pool:
    pool.map(make_photos, chunks(args.photos, "photo") + chunks(args.authors, "avatar"))

rnd = random.Random(20261126)
WORDS = ["archive", "photo", "river", "city", "night", "market", "protest", "garden", "storm", "bridge",
         "museum", "train", "harbour", "festival", "library", "snow", "sunset", "street", "field", "tower"]
TAGS = [f"tag{n}" for n in range(500)]


def author_for(i):
    """Zipf-like: a few authors post often; authors appear as the collection grows."""
    seen = max(50, min(args.authors, int(args.authors * (i + 1) / max(1, args.posts // 5))))
    return min(seen - 1, int(seen * rnd.random() ** 3))


photo_per_post = args.photos / (args.posts * 2 / 3)
with open(os.path.join(args.out, "posts.jsonl"), "w") as out:
    statuses = []
    for i in range(args.posts):
        a = author_for(i)
        media = []
        if i % 3 != 0:
            if rnd.random() < 0.05 and i > 1000:
                p = int((i * 2 / 3) * photo_per_post * rnd.random())  # an older photo again
            else:
                p = int((i * 2 / 3) * photo_per_post)
            p = min(args.photos - 1, p)
            media.append({"id_str": str(9_000_000 + p), "type": "photo",
                          "media_url_https": f"https://pbs.twimg.com/media/P{p:06d}.jpg",
                          "url": f"https://t.co/m{p}", "indices": [0, 0],
                          "sizes": {"large": {"w": 320, "h": 240, "resize": "fit"}}})
        tag = TAGS[min(len(TAGS) - 1, int(len(TAGS) * rnd.random() ** 2))]
        text = f"{rnd.choice(WORDS)} {rnd.choice(WORDS)} {i} "
        statuses.append({
            "id_str": str(1_600_000_000_000_000_000 + i),
            "created_at": "Sun Nov 22 06:00:00 +0000 2026",
            "full_text": text + f"#{tag}",
            "user": {"id_str": str(500 + a), "screen_name": f"user{a}", "name": f"User {a}",
                     "profile_image_url_https": f"https://pbs.twimg.com/profile_images/{a}/u{a}_normal.jpg"},
            "entities": {"hashtags": [{"text": tag, "indices": [len(text), len(text) + 1 + len(tag)]}],
                         "urls": [], "user_mentions": []},
            "extended_entities": {"media": media},
        })
        if len(statuses) == 100:
            out.write(json.dumps({"statuses": statuses,
                                  "search_metadata": {"query": "#archive", "count": 100}}) + "\n")
            statuses = []
    if statuses:
        out.write(json.dumps({"statuses": statuses, "search_metadata": {"query": "#archive", "count": 100}}) + "\n")
print(f"{args.posts} posts, {args.photos} photos, {args.authors} avatars in {args.out}")
