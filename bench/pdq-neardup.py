#!/usr/bin/env python3
"""Near-duplicate recall of tweetcache's PDQ against the reference PDQ and imagehash's pHash.

    bench/pdq-testset.py SET --photos 300
    bench/pdq-neardup.py TWEETCACHE SET [--threshold 31] [--phash-threshold 8]

For each transformation in SET (made by pdq-testset.py), the share of photos whose
transformed copy is found at the threshold:
  - tweetcache: `tweetcache pdq --dihedral`, the copy's eight dihedral hashes against
    the original's hash (how `dupes` and `info` search);
  - reference: `pdqhash.compute` of both (plain hashes), and `pdqhash.compute_dihedral`
    of the copy against the original's hash;
  - pHash: imagehash.phash (64 bits), at --phash-threshold (8 of 64 is PDQ's 31 of 256).
Then the false matches among all pairs of distinct originals, and whether every pair
the reference matches is matched here too. Needs numpy, Pillow, pdqhash and imagehash.
"""
import argparse, itertools, os, subprocess, sys
import numpy as np
import pdqhash, imagehash
from PIL import Image, ImageOps

TRANSFORMS = ["jpeg40", "resize50", "caption", "watermark", "flip", "rotate90", "crop2", "crop5"]


def tc_hashes(tool, paths):
    out = {}
    for start in range(0, len(paths), 300):
        run = subprocess.run([tool, "pdq", "--dihedral", *paths[start : start + 300]], capture_output=True, text=True, check=True)
        for line in run.stdout.splitlines():
            parts = line.split(",")
            out[",".join(parts[9:])] = [int(h, 16) for h in parts[:8]]
    return out


def bits(v):
    return int("".join(str(int(b)) for b in v), 2)


def ref_hashes(path):
    with Image.open(path) as im:
        im = ImageOps.exif_transpose(im).convert("RGB")
        a = np.asarray(im)
        plain, _ = pdqhash.compute(a)
        dihedral, _ = pdqhash.compute_dihedral(a)
        ph = imagehash.phash(im)
    return bits(plain), [bits(v) for v in dihedral], ph


def hd(a, b):
    return bin(a ^ b).count("1")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tweetcache"); ap.add_argument("set")
    ap.add_argument("--threshold", type=int, default=31); ap.add_argument("--phash-threshold", type=int, default=8)
    args = ap.parse_args()
    names = sorted(os.listdir(os.path.join(args.set, "originals")))
    paths = {t: [os.path.join(args.set, t, n) for n in names] for t in ["originals"] + TRANSFORMS}
    ours = tc_hashes(args.tweetcache, [p for t in paths.values() for p in t])
    ref = {p: ref_hashes(p) for t in paths.values() for p in t}
    T = args.threshold
    print(f"{len(names)} photos, threshold {T} bits (pHash {args.phash_threshold} of 64)\n")
    print("| transformation | tweetcache (dihedral) | reference PDQ | reference PDQ, dihedral | pHash | reference matches missed here |")
    print("|---|---|---|---|---|---|")
    for t in TRANSFORMS:
        tc = refp = refd = ph = missed = 0
        for o, c in zip(paths["originals"], paths[t]):
            ours_hit = min(hd(v, ours[o][0]) for v in ours[c]) <= T
            ref_hit = hd(ref[o][0], ref[c][0]) <= T
            refd_hit = min(hd(v, ref[o][0]) for v in ref[c][1]) <= T
            tc += ours_hit; refp += ref_hit; refd += refd_hit
            ph += (ref[o][2] - ref[c][2]) <= args.phash_threshold
            missed += (ref_hit or refd_hit) and not ours_hit
        n = len(names)
        print(f"| {t} | {tc / n:.1%} | {refp / n:.1%} | {refd / n:.1%} | {ph / n:.1%} | {missed} |")
    pairs = list(itertools.combinations(paths["originals"], 2))
    false_tc = sum(min(hd(v, ours[b][0]) for v in ours[a]) <= T for a, b in pairs)
    false_ref = sum(hd(ref[a][0], ref[b][0]) <= T for a, b in pairs)
    false_ph = sum((ref[a][2] - ref[b][2]) <= args.phash_threshold for a, b in pairs)
    print(f"\nfalse matches among {len(pairs)} pairs of distinct photos: tweetcache (dihedral) {false_tc} "
          f"({false_tc / len(pairs):.3%}), reference PDQ {false_ref} ({false_ref / len(pairs):.3%}), pHash {false_ph} ({false_ph / len(pairs):.3%})")


if __name__ == "__main__":
    main()
