#!/usr/bin/env python3
"""Per-family figures for a folder of real-world images: decoded by TweetCache and
vipsthumbnail, by one only, by neither; CIEDE2000 of TweetCache's thumbnails against
a reference (a NAME.reference.png beside the file or REFDIR/NAME.png, else the file
decoded by Pillow with its ICC profile converted by Little CMS through ImageCms and its
EXIF orientation applied); peak RSS of each tool; and thumbnail speed against
vipsthumbnail on the files both decode.

Usage: scripts/realworld-figures.py BIN DIR [REFDIR]   (scripts/realworld-figures.sh builds BIN)
"""
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image, ImageCms, ImageOps

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from colour_difference import ciede2000, lab  # noqa: E402  (the project's one CIEDE2000)

SIZE = 256
EXTENSIONS = {".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".heic", ".heif"}


def measured(command):
    """Runs `command` under GNU time: (exit status, peak RSS in KB, seconds)."""
    with tempfile.NamedTemporaryFile() as report:
        start = time.monotonic()
        run = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name] + command,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds = time.monotonic() - start
        lines = open(report.name).read().split()
        return run.returncode, int(lines[-1]) if lines else 0, seconds


def reference(path, refdir):
    """The reference rendering as an RGB(A) Pillow image, and what it is."""
    stem = os.path.splitext(os.path.basename(path))[0]
    for candidate in [os.path.splitext(path)[0] + ".reference.png",
                      os.path.join(refdir, stem + ".png") if refdir else None]:
        if candidate and os.path.exists(candidate):
            return Image.open(candidate).convert("RGBA"), "reference PNG"
    image = Image.open(path)
    image.load()
    profile = image.info.get("icc_profile")
    gamma = image.info.get("gamma")
    if image.format == "PNG" and not profile and "srgb" not in image.info and gamma and abs(gamma - 0.45455) > 0.005:
        # The PNG specification's formula for gAMA (Pillow reads the chunk, never applies it):
        # light = sample ** (1 / gamma), then sRGB-encoded. cHRM is not applied here.
        rgba = np.asarray(image.convert("RGBA")).astype(np.float64) / 255
        light = rgba[..., :3] ** (1 / gamma)
        encoded = np.where(light <= 0.0031308, 12.92 * light, 1.055 * light ** (1 / 2.4) - 0.055)
        rgba[..., :3] = encoded
        return Image.fromarray((rgba * 255 + 0.5).clip(0, 255).astype(np.uint8), "RGBA"), "PNG formulas"

    image = ImageOps.exif_transpose(image)
    if image.mode == "CMYK" and not profile:
        return image.convert("RGB").convert("RGBA"), "Pillow"
    if profile:
        source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
        target = ImageCms.createProfile("sRGB")
        mode = "CMYK" if image.mode == "CMYK" else "RGB"
        image = ImageCms.profileToProfile(image.convert(mode), source, target, outputMode="RGB",
                                          renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
        return image.convert("RGBA"), "Little CMS"
    return image.convert("RGBA"), "Pillow"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, root = sys.argv[1], sys.argv[2]
    refdir = sys.argv[3] if len(sys.argv) > 3 else None
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(root) for f in names
                   if os.path.splitext(f)[1].lower() in EXTENSIONS and not f.endswith(".reference.png"))
    work = tempfile.mkdtemp(prefix="tc-figures.")
    families = {}
    both = []
    peaks = {"tweetcache": 0, "vipsthumbnail": 0}
    for index, path in enumerate(files):
        family = os.path.relpath(path, root).split(os.sep)[0]
        entry = families.setdefault(family, {"both": 0, "tweetcache": 0, "vips": 0, "neither": 0, "medians": [], "p99": []})
        out = os.path.join(work, f"t{index}")
        os.makedirs(out)
        ours, our_peak, _ = measured([binary, "thumb", path, "--out", out, "--size", str(SIZE), "--jobs", "1"])
        theirs, their_peak, _ = measured(["vipsthumbnail", path, "-s", str(SIZE), "--export-profile", "srgb",
                                          "-o", os.path.join(work, f"v{index}.png")])
        peaks["tweetcache"] = max(peaks["tweetcache"], our_peak)
        peaks["vipsthumbnail"] = max(peaks["vipsthumbnail"], their_peak)
        key = "both" if ours == 0 and theirs == 0 else "tweetcache" if ours == 0 else "vips" if theirs == 0 else "neither"
        entry[key] += 1
        if ours != 0:
            continue
        if theirs == 0:
            both.append(path)
        thumbs = os.listdir(out)
        try:
            ref, _ = reference(path, refdir)
        except Exception:
            continue
        mine = Image.open(os.path.join(out, thumbs[0])).convert("RGBA")
        ref = ref.resize(mine.size, Image.LANCZOS)
        a, b = np.asarray(mine).reshape(-1, 4), np.asarray(ref).reshape(-1, 4)
        opaque = (a[:, 3] > 250) & (b[:, 3] > 250)
        if opaque.sum() == 0:
            continue
        delta = ciede2000(lab(a[opaque, :3].astype(np.float64)), lab(b[opaque, :3].astype(np.float64)))
        entry["medians"].append(float(np.median(delta)))
        entry["p99"].append(float(np.percentile(delta, 99)))
    print(f"{'family':<28} {'both':>5} {'only TC':>8} {'only vips':>10} {'neither':>8} {'ΔE00 median':>13} {'ΔE00 p99':>9}")
    for family, e in sorted(families.items()):
        median = f"{statistics.median(e['medians']):.2f}" if e["medians"] else "-"
        p99 = f"{statistics.median(e['p99']):.2f}" if e["p99"] else "-"
        print(f"{family:<28} {e['both']:>5} {e['tweetcache']:>8} {e['vips']:>10} {e['neither']:>8} {median:>13} {p99:>9}")
    print(f"peak RSS: tweetcache thumb {peaks['tweetcache'] // 1024} MB, vipsthumbnail {peaks['vipsthumbnail'] // 1024} MB")
    if both:
        # Speed on the files both decode: one process each, all files, one core each.
        _, _, ours = measured([binary, "thumb", *both, "--out", os.path.join(work, "speed-t"), "--size", str(SIZE), "--jobs", "1"])
        os.makedirs(os.path.join(work, "speed-v"), exist_ok=True)
        _, _, theirs = measured(["vipsthumbnail", *both, "-s", str(SIZE), "-o", os.path.join(work, "speed-v", "%s.jpg")])
        print(f"thumbnails of {len(both)} files: tweetcache {ours:.2f} s, vipsthumbnail {theirs:.2f} s, ratio {ours / theirs:.2f}x")
    print("ΔE00: per image over opaque pixels, the median of the images' medians and of their 99th percentiles;")
    print("      TweetCache's thumbnails of opaque images are JPEG q85, so the figures include its artefacts")


if __name__ == "__main__":
    main()
