#!/usr/bin/env python3
"""A cache's worth of manifests at archive scale, for bench/catalog-scale.sh: the
posts of RUNS runs of PER_RUN posts each (default 100 x 10,000 = 1,000,000 posts),
written as `tweetcache fetch` writes them (every field a real run writes: avatars,
photos with thumbnails and packs, entities with positions), plus the same posts
flattened to JSON Lines for the peer (`sqlite-utils insert`).

The shape of a real collection: 20,000 authors (a few very active), 100,000
distinct photos shared by posts (about one post in three has none), hashtags and
words drawn with Zipf-like frequencies, one search query per run, and 5% of each
run's posts fetched again from earlier runs (a newer copy of the same post).

No blobs are written: the catalog and its readers never read them. Deterministic
(fixed seed); standard library only.

Usage: make-catalog-corpus.py OUT_DIR [--runs 100] [--per-run 10000]
Writes OUT_DIR/cache/manifests/<stamp>.json and OUT_DIR/posts.jsonl.
"""
import argparse
import hashlib
import json
import os
import random
from datetime import datetime, timedelta, timezone

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--runs", type=int, default=100)
parser.add_argument("--per-run", type=int, default=10_000)
args = parser.parse_args()
rnd = random.Random(20261126)

manifests = os.path.join(args.out, "cache", "manifests")
os.makedirs(manifests, exist_ok=True)

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ex", "an", "or", "is", "ul", "em", "de", "ba",
             "chi", "pra", "stu", "gle", "mon", "ter", "vis", "quo"]


def word(k):
    r = random.Random(k)
    return "".join(r.choice(SYLLABLES) for _ in range(1 + k % 3 + (k // 7) % 2))


VOCABULARY = [word(k) for k in range(5000)]
TAGS = [word(100_000 + k).capitalize() + (str(k % 97) if k % 5 == 0 else "") for k in range(2000)]
USERS = [(str(10_000_000 + k), f"{word(200_000 + k)}_{k}", f"{word(300_000 + k).capitalize()} {word(400_000 + k).capitalize()}")
         for k in range(20_000)]


def cumulative(weights):
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return out


# Cumulative, so each draw is a binary search rather than a pass over the weights.
WEIGHTS_WORDS = cumulative(1 / (k + 1) for k in range(len(VOCABULARY)))
WEIGHTS_TAGS = cumulative(1 / (k + 1) ** 1.1 for k in range(len(TAGS)))
WEIGHTS_USERS = cumulative(1 / (k + 1) ** 0.8 for k in range(len(USERS)))
USER_INDICES = range(len(USERS))
AVATARS = {}
PHOTOS = {}


def sha(kind, n):
    return hashlib.sha256(f"{kind}-{n}".encode()).hexdigest()


def thumbs(h, w, hgt, sizes):
    out = []
    for s in sizes:
        scale = min(1, s / max(w, hgt))
        out.append({"height": max(1, round(hgt * scale)), "path": f"derived/{h[:2]}/{h}.thumb-{s}.jpg", "size": s,
                    "width": max(1, round(w * scale))})
    return out


def avatar(user_index):
    h = sha("avatar", user_index)
    return {"bytes": 14_000 + user_index % 5000, "content_type": "image/jpeg", "height": 400, "sha256": h,
            "thumbnails": thumbs(h, 400, 400, [150]),
            "url": f"https://pbs.twimg.com/profile_images/{user_index}/a{user_index}_400x400.jpg", "width": 400}


def photo(n, media_id):
    h = sha("photo", n)
    w, hgt = (1200, 800) if n % 50 == 0 else (320, 240)
    m = {"bytes": 20_000 + n % 30_000, "content_type": "image/jpeg", "height": hgt, "id": media_id, "sha256": h,
         "thumbnails": thumbs(h, w, hgt, [150, 600] if w > 600 else [150]), "type": "photo",
         "url": f"https://pbs.twimg.com/media/P{n}?format=jpg&name=orig", "width": w}
    if w > 512:
        m["tiles"] = {"bytes": 150_000, "pack": f"derived/{h[:2]}/{h}.pack", "tile_size": 256}
    return m


START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def post(n, query):
    """Post number n (its id, date and content follow from n alone, so a re-fetch is the same post)."""
    r = random.Random(n)
    u = r.choices(USER_INDICES, cum_weights=WEIGHTS_USERS)[0]
    uid, handle, name = USERS[u]
    created = START + timedelta(seconds=n * 31 + r.randrange(30))
    words = r.choices(VOCABULARY, cum_weights=WEIGHTS_WORDS, k=r.randrange(8, 30))
    text = " ".join(words).capitalize()
    entities = {"cashtags": [], "hashtags": [], "media": [], "mentions": [], "urls": []}
    for tag in dict.fromkeys(r.choices(TAGS, cum_weights=WEIGHTS_TAGS, k=r.randrange(0, 4))):
        start = len(text) + 1
        text += f" #{tag}"
        entities["hashtags"].append({"end": start + 1 + len(tag), "start": start, "tag": tag})
    for _ in range(r.randrange(0, 3) // 2):
        other = USERS[r.randrange(len(USERS))]
        start = len(text) + 1
        text += f" @{other[1]}"
        entities["mentions"].append({"end": start + 1 + len(other[1]), "id": other[0], "start": start, "username": other[1]})
    if r.random() < 0.2:
        start = len(text) + 1
        text += " https://t.co/x" + str(n)
        entities["urls"].append({"display_url": f"example.org/{n}", "end": len(text), "expanded_url": f"https://example.org/{n}",
                                 "start": start, "url": "https://t.co/x" + str(n)})
    media = []
    count = r.choices([0, 1, 2, 4], [33, 50, 12, 5])[0]
    for i in range(count):
        media.append(photo(r.randrange(100_000), str(2_000_000_000_000 + n * 4 + i)))
    return {
        "author": {"avatar": AVATARS.get(u) or AVATARS.setdefault(u, avatar(u)), "id": uid, "name": name, "screen_name": handle},
        "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "entities": entities, "id": str(1_700_000_000_000_000_000 + n), "lang": "en", "media": media,
        "network": "x", "query": query, "referenced_tweets": [], "source": f"/data/run-{query}.json",
        "source_format": "v2Search", "text": text,
    }


flat = open(os.path.join(args.out, "posts.jsonl"), "w")
next_post = 0
total = 0
for run in range(args.runs):
    query = "#" + TAGS[run % 50]
    ids = list(range(next_post, next_post + args.per_run))
    next_post += args.per_run
    if run > 0:
        # 5% of the run are posts fetched before (their newer copy wins).
        again = args.per_run // 20
        ids[:again] = [rnd.randrange(0, next_post - args.per_run) for _ in range(again)]
    tweets = [post(n, query) for n in ids]
    generated = START + timedelta(days=400, hours=run)
    stamp = generated.strftime("%Y%m%dT%H%M%SZ")
    manifest = {
        "cache_root": "/data/cache", "failures": [], "generated_at": generated.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "included_tweets": [],
        "sources": [{"formats": ["v2Search"], "path": f"/data/run-{query}.json", "problems": [], "query": query,
                     "tweets": len(tweets)}],
        "summary": {"bytes_downloaded": 0, "cached": 0, "deduplicated": 0, "derive_failed": 0, "derived": 0,
                    "downloaded": 0, "failed": 0, "failures_by_reason": {}, "included_tweets": 0, "problems": 0,
                    "seconds": 1, "tweets": len(tweets), "urls": 0},
        "tool": "tweetcache bench", "tweets": tweets, "version": 1,
    }
    with open(os.path.join(manifests, stamp + ".json"), "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True, ensure_ascii=False)
    for t in tweets:
        flat.write(json.dumps({
            "id": t["id"], "created_at": t["created_at"], "screen_name": t["author"]["screen_name"],
            "name": t["author"]["name"], "text": t["text"], "query": query,
            "hashtags": " ".join(h["tag"] for h in t["entities"]["hashtags"]),
            "media": json.dumps([m["sha256"] for m in t["media"]]),
        }, ensure_ascii=False) + "\n")
    total += len(tweets)
flat.close()
print(f"{total} posts in {args.runs} manifests under {manifests}")
