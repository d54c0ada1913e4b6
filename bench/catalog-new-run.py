#!/usr/bin/env python3
"""Benchmark (issue 26): the first /api/tweets page after a new small run, twelve times.

Starts `tweetcache serve` on CACHE, then twelve times writes a new 100-post run (new
ids, a later generated_at, a new name) into manifests/ and times the first page (which
reads the run into the catalog) and the page after. Removes the runs at the end, so the
next reader of CACHE rebuilds its catalog (a manifest it read went).

Usage: bench/catalog-new-run.py CACHE TWEETCACHE_BIN   (PORT=8097 by default)
"""
import http.client, json, os, statistics, sys, time, subprocess, copy, tempfile

cache, binp = sys.argv[1], sys.argv[2]
port = int(os.environ.get("PORT", "8097"))
# The server's messages go to a file, not a pipe nobody reads while it serves (a full
# pipe would stop it mid-run).
errors = tempfile.TemporaryFile()
srv = subprocess.Popen([binp, "serve", "--cache", cache, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=errors)
def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t = time.perf_counter(); c.request("GET", path); r = c.getresponse(); body = r.read()
    return r.status, body, time.perf_counter() - t
deadline = time.monotonic() + 120
while True:
    # A server that stopped (the port taken by another) or one that is not ours ends the run.
    if srv.poll() is not None:
        errors.seek(0)
        sys.exit("serve stopped: %s" % errors.read().decode(errors="replace").strip())
    if time.monotonic() > deadline:
        srv.kill(); sys.exit("no first page from serve on port %d within 120 s" % port)
    try:
        if get("/api/tweets?limit=100")[0] == 200: break
    except OSError: time.sleep(0.05)
runs = sorted(x for x in os.listdir(os.path.join(cache, "manifests")) if not x.startswith("zz"))
base = json.load(open(os.path.join(cache, "manifests", runs[-1])))
firsts, nexts, made = [], [], []
for k in range(12):
    run = copy.deepcopy(base)
    run["tweets"] = run["tweets"][:100]
    for j, t in enumerate(run["tweets"]): t["id"] = str(9100000000000000000 + k * 1000 + j)
    run["generated_at"] = "2030-01-01T00:%02d:00Z" % k
    name = os.path.join(cache, "manifests", "zz-newrun-%02d.json" % k)
    json.dump(run, open(name + ".tmp", "w"), indent=2, sort_keys=True); os.rename(name + ".tmp", name); made.append(name)
    firsts.append(get("/api/tweets?limit=100")[2] * 1000); nexts.append(get("/api/tweets?limit=100")[2] * 1000)
    time.sleep(0.2)
srv.kill()
for n in made: os.remove(n)
print("first page after a new 100-post run: median %.1f ms (%s)" % (statistics.median(firsts), ", ".join("%.0f" % x for x in firsts)))
print("the page after: median %.1f ms" % statistics.median(nexts))
