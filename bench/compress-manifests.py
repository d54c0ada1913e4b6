#!/usr/bin/env python3
"""Rewrites a cache's `manifests/*.json` as `manifests/*.json.zst` in the seekable zstd
format runs now write (docs: README "The manifest"): the same JSON bytes, so the same
offsets, in frames of 64 KB, then the seek table. For benchmarks on caches written
before manifests were compressed (bench/catalog-words.sh on a converted copy, after
`tweetcache reindex`). Uses the system's libzstd through ctypes (level 3, each frame
with its checksum, as runs write them and readers require).

Usage: compress-manifests.py CACHE_DIR   (removes each .json once its .json.zst is written)
"""
import ctypes
import ctypes.util
import os
import struct
import sys

lib = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
lib.ZSTD_compressBound.restype = ctypes.c_size_t
lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
lib.ZSTD_createCCtx.restype = ctypes.c_void_p
lib.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
lib.ZSTD_compress2.restype = ctypes.c_size_t
lib.ZSTD_compress2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
lib.ZSTD_isError.restype = ctypes.c_uint
lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
CCTX = lib.ZSTD_createCCtx()
lib.ZSTD_CCtx_setParameter(CCTX, 100, 3)  # ZSTD_c_compressionLevel
lib.ZSTD_CCtx_setParameter(CCTX, 201, 1)  # ZSTD_c_checksumFlag: readers require it

FRAME = 64 << 10


def compress(src, dst):
    bound = lib.ZSTD_compressBound(FRAME)
    out = ctypes.create_string_buffer(bound)
    entries = []
    with open(src, "rb") as f, open(dst + ".tmp", "wb") as o:
        while True:
            chunk = f.read(FRAME)
            if not chunk:
                break
            n = lib.ZSTD_compress2(CCTX, out, bound, chunk, len(chunk))
            assert not lib.ZSTD_isError(n)
            o.write(out.raw[:n])
            entries.append((n, len(chunk)))
        body = b"".join(struct.pack("<II", c, d) for c, d in entries)
        footer = struct.pack("<IBI", len(entries), 0, 0x8F92EAB1)
        o.write(struct.pack("<II", 0x184D2A5E, len(body) + len(footer)) + body + footer)
    os.rename(dst + ".tmp", dst)


folder = os.path.join(sys.argv[1], "manifests")
for name in sorted(os.listdir(folder)):
    if name.endswith(".json") and not name.startswith("."):
        path = os.path.join(folder, name)
        compress(path, path + ".zst")
        os.remove(path)
        print(name + ".zst", os.path.getsize(path + ".zst"))
