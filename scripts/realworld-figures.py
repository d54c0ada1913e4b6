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

SIZE = 256
EXTENSIONS = {".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".heic", ".heif"}


def srgb_to_lab(rgb):
    """8-bit sRGB (N x 3) to CIE L*a*b* (D65)."""
    c = rgb.astype(np.float64) / 255
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]])
    xyz = linear @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def ciede2000(lab1, lab2):
    """CIEDE2000 colour difference per row (kL = kC = kH = 1), from the CIE 142-2001 formulas."""
    L1, a1, b1 = lab1.T
    L2, a2, b2 = lab2.T
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean ** 7 / (c_mean ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dL = L2 - L1
    dC = c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(c1p * c2p == 0, 0, dh)
    dH = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    L_mean = (L1 + L2) / 2
    cp_mean = (c1p + c2p) / 2
    h_sum = h1p + h2p
    h_mean = np.where(c1p * c2p == 0, h_sum,
                      np.where(np.abs(h1p - h2p) <= 180, h_sum / 2,
                               np.where(h_sum < 360, (h_sum + 360) / 2, (h_sum - 360) / 2)))
    t = (1 - 0.17 * np.cos(np.radians(h_mean - 30)) + 0.24 * np.cos(np.radians(2 * h_mean))
         + 0.32 * np.cos(np.radians(3 * h_mean + 6)) - 0.20 * np.cos(np.radians(4 * h_mean - 63)))
    sl = 1 + 0.015 * (L_mean - 50) ** 2 / np.sqrt(20 + (L_mean - 50) ** 2)
    sc = 1 + 0.045 * cp_mean
    sh = 1 + 0.015 * cp_mean * t
    rt = (-2 * np.sqrt(cp_mean ** 7 / (cp_mean ** 7 + 25.0 ** 7))
          * np.sin(np.radians(60 * np.exp(-(((h_mean - 275) / 25) ** 2)))))
    return np.sqrt((dL / sl) ** 2 + (dC / sc) ** 2 + (dH / sh) ** 2 + rt * (dC / sc) * (dH / sh))


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
        delta = ciede2000(srgb_to_lab(a[opaque, :3]), srgb_to_lab(b[opaque, :3]))
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
