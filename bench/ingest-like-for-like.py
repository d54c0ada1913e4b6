#!/usr/bin/env python3
"""Prep for bench/ingest-like-for-like.sh (not timed): the catalog's rows as JSON Lines.

Reads every manifest under CORPUS_DIR/cache/manifests in name order (plain JSON, the
posts in the top-level "tweets" array) and writes, into CORPUS_DIR/like/, one file per
table the peer fills with `sqlite-utils insert`, one row per post, tag or reference as
the catalog's ingest makes them (PostRow, PostWriter.references):

  posts.jsonl      id, included (0), run (manifest number), offset, length (the post's
                   place in its file; any ints do), created (epoch seconds, -1e300
                   undated), id_order (PostOrder.idKey), user (handle lower-cased, no @),
                   handle, query (trimmed, null if empty), photos (media of type photo
                   with a sha256), network ("x" if missing)
  post_tags.jsonl  post (the post's id), tag (lower-cased, no leading #/$), created,
                   id_order: one per distinct tag, hashtags then cashtags
  refs.jsonl       post, slot (0 avatar, 2(i+1) the i-th medium, 2(i+1)+1 its video
                   file), blob (sha256 hex), kind (0 photo, 1 video, 2 avatar)
  blobs.jsonl      sha256, once per distinct hash
  fts.jsonl        post, text, name, handle, tags (the tags' spellings, a space between)

Every copy of a post is written in file order; the peer's `--replace` lets the later
copy win, as the catalog does. A copy whose tags or references differ from the earlier
one's would leave stale rows behind; their number is printed (0 keeps it like for like).

Usage: bench/ingest-like-for-like.py CORPUS_DIR   (reuses CORPUS_DIR/like/ if complete)
Needs: Python 3.9+, nothing else.
"""
import datetime
import json
import os
import shutil
import sys
import time

UNDATED = -1e300
TABLES = ("posts", "post_tags", "refs", "blobs", "fts")
PHOTO, VIDEO, AVATAR = 0, 1, 2


def normalise(text, marks):
    text = text.strip()
    while text and text[0] in marks:
        text = text[1:]
    return text.lower()


def id_key(post_id):
    if post_id and len(post_id) < 1000 and post_id.isascii() and post_id.isdigit():
        digits = post_id.lstrip("0")
        return "0%03d%s" % (len(digits), digits)
    return "1" + post_id


def created(text):
    if not text:
        return UNDATED
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        pass
    try:  # the v1 API's spelling
        return datetime.datetime.strptime(text, "%a %b %d %H:%M:%S %z %Y").timestamp()
    except ValueError:
        return UNDATED


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/ingest-like-for-like.py CORPUS_DIR")
    corpus = os.path.abspath(sys.argv[1])
    like = os.path.join(corpus, "like")
    if os.path.exists(os.path.join(like, "done")):
        print(f"prep: reusing {like}", file=sys.stderr)
        return
    manifests_dir = os.path.join(corpus, "cache", "manifests")
    names = sorted(n for n in os.listdir(manifests_dir) if n.endswith(".json"))
    partial = like + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(partial)
    out = {t: open(os.path.join(partial, t + ".jsonl"), "w", encoding="utf-8") for t in TABLES}
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    seen_blobs = set()
    shape = {}  # post id -> hash of its tag keys and references, to count stale rows
    counts = dict.fromkeys(TABLES, 0)
    copies = stale = 0
    start = time.monotonic()

    def write(table, row):
        out[table].write(dumps(row))
        out[table].write("\n")
        counts[table] += 1

    def blob(sha):
        if sha not in seen_blobs:
            seen_blobs.add(sha)
            write("blobs", {"sha256": sha})

    for run, name in enumerate(names, 1):
        with open(os.path.join(manifests_dir, name), "rb") as f:
            manifest = json.load(f)
        for offset, post in enumerate(manifest.get("tweets") or []):
            pid = str(post["id"])
            when = created(post.get("created_at"))
            order = id_key(pid)
            author = post.get("author") or {}
            handle = author.get("screen_name") or ""
            media = post.get("media") or []
            query = (post.get("query") or "").strip() or None
            write("posts", {
                "id": pid, "included": 0, "run": run, "offset": offset, "length": 0,
                "created": when, "id_order": order, "user": normalise(handle, "@"),
                "handle": handle, "query": query,
                "photos": sum(1 for m in media if m.get("type") == "photo" and m.get("sha256")),
                "network": post.get("network") or "x",
            })
            entities = post.get("entities") or {}
            keys, spellings = [], []
            for tag in (entities.get("hashtags") or []) + (entities.get("cashtags") or []):
                spelling = tag.get("tag") or ""
                key = normalise(spelling, "#$")
                if key and key not in keys:
                    keys.append(key)
                    spellings.append(spelling)
                    write("post_tags", {"post": pid, "tag": key, "created": when, "id_order": order})
            refs = []
            avatar = (author.get("avatar") or {}).get("sha256")
            if avatar:
                refs.append((0, avatar, AVATAR))
            for i, m in enumerate(media):
                if m.get("url") and m.get("sha256"):
                    refs.append((2 * (i + 1), m["sha256"], PHOTO if m.get("type") == "photo" else VIDEO))
                video = (m.get("video") or {}).get("sha256")
                if video:
                    refs.append((2 * (i + 1) + 1, video, VIDEO))
            for slot, sha, kind in refs:
                blob(sha)
                write("refs", {"post": pid, "slot": slot, "blob": sha, "kind": kind})
            write("fts", {"post": pid, "text": post.get("text") or "", "name": author.get("name") or "",
                          "handle": handle, "tags": " ".join(spellings)})
            h = hash((tuple(keys), tuple((s, k) for s, _, k in refs)))
            if pid in shape:
                copies += 1
                stale += shape[pid] != h
            shape[pid] = h
        print(f"prep: {run}/{len(names)} {name} {time.monotonic() - start:.0f} s", file=sys.stderr)

    for f in out.values():
        f.close()
    with open(os.path.join(partial, "done"), "w") as f:
        json.dump({"manifests": len(names), "rows": counts, "posts": len(shape),
                   "repeated_copies": copies, "copies_with_other_rows": stale}, f)
        f.write("\n")
    shutil.rmtree(like, ignore_errors=True)
    os.rename(partial, like)
    print(f"prep: {len(shape)} posts ({copies} repeated copies, {stale} with other tags/refs), rows {counts},"
          f" {time.monotonic() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
