#!/usr/bin/env python3
"""Agreement of `tweetcache pdq` with the reference PDQ (the `pdqhash` package).

    bench/pdq-agreement.py TWEETCACHE PATH... [--limit N]

PATH is an image file or a folder searched for .jpg/.jpeg/.png. Each image is decoded
with Pillow (turned upright by its EXIF orientation, as tweetcache hashes it) and
hashed by `pdqhash.compute`; the same file is hashed by `TWEETCACHE pdq`. Prints the
Hamming distance's median, 99th percentile and maximum, and the quality differences.
Needs numpy, Pillow and pdqhash (pip install pdqhash).
"""
import argparse, os, subprocess, sys
import numpy as np
import pdqhash
from PIL import Image, ImageOps


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in sorted(names):
                    if n.lower().endswith((".jpg", ".jpeg", ".png")):
                        yield os.path.join(root, n)
        else:
            yield p


def sixteen_bit_png(path):
    """Pillow reduces 16-bit PNGs its own way (clipping grey, dropping low bytes), libpng
    here rounds: their pixels differ before any hashing, so they are counted apart."""
    with open(path, "rb") as f:
        head = f.read(25)
    return head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) == 25 and head[24] == 16


def reference(path):
    with Image.open(path) as im:
        im = ImageOps.exif_transpose(im).convert("RGB")
        bits, quality = pdqhash.compute(np.asarray(im))
    return int("".join(str(int(b)) for b in bits), 2), quality


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tweetcache"); ap.add_argument("paths", nargs="+"); ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    paths = list(files(args.paths))
    if args.limit:
        paths = paths[: args.limit]
    ours = {}
    for start in range(0, len(paths), 200):
        chunk = paths[start : start + 200]
        run = subprocess.run([args.tweetcache, "pdq", *chunk], capture_output=True, text=True)
        for line in run.stdout.splitlines():
            h, q, path = line.split(",", 2)
            ours[path] = (int(h, 16), int(q))
        for line in run.stderr.splitlines():
            print("tweetcache:", line, file=sys.stderr)
    distances, qualities, skipped, wide = [], [], 0, []
    for path in paths:
        if path in ours and sixteen_bit_png(path):
            wide.append(path)
            continue
        if path not in ours:
            skipped += 1
            continue
        try:
            ref_hash, ref_quality = reference(path)
        except Exception as error:  # Pillow refuses a few of the damaged reference files
            print(f"reference failed on {path}: {error}", file=sys.stderr)
            skipped += 1
            continue
        d = bin(ours[path][0] ^ ref_hash).count("1")
        distances.append(d)
        qualities.append(abs(ours[path][1] - ref_quality))
        if d > 4:
            print(f"  {d:3d} bits  {path}")
    if not distances:
        sys.exit("no image hashed by both")
    d = np.array(distances); q = np.array(qualities)
    print(f"images: {len(d)} (not hashed by both: {skipped}; 16-bit PNGs left out, decoders differ: {len(wide)})")
    print(f"hamming distance: median {np.median(d):.0f}, p99 {np.percentile(d, 99):.0f}, max {d.max()}, "
          f"identical {np.mean(d == 0) * 100:.1f}%")
    print(f"quality difference: median {np.median(q):.0f}, max {q.max()}, within 5: {np.mean(q <= 5) * 100:.1f}%")


if __name__ == "__main__":
    main()
