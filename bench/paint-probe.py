#!/usr/bin/env python3
"""Opens URL in headless Chromium (driven over --remote-debugging-pipe, no extra
packages) and prints, as JSON, what the page put in document.body.dataset.paint
once it appears (real time: no virtual-time budget, which would fake the clock).

  bench/paint-probe.py CHROMIUM URL
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

chrome, url = sys.argv[1], sys.argv[2]
to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()


def child_fds():
    # Chromium reads commands on fd 3 and writes replies on fd 4.
    os.dup2(to_chrome_r, 3)
    os.dup2(from_chrome_w, 4)


profile = tempfile.mkdtemp(prefix="tc-paint-")
proc = subprocess.Popen(
    [chrome, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1000,750",
     "--user-data-dir=" + profile, "--no-first-run", "--disable-extensions", "--disable-background-networking",
     "--remote-debugging-pipe", "about:blank"],
    preexec_fn=child_fds, pass_fds=(3, 4, to_chrome_r, from_chrome_w), stderr=subprocess.DEVNULL)
os.close(to_chrome_r)
os.close(from_chrome_w)
buffer = b""
next_id = 0


def call(method, params=None, session=None):
    global buffer, next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params or {}}
    if session:
        message["sessionId"] = session
    os.write(to_chrome_w, json.dumps(message).encode() + b"\0")
    while True:
        while b"\0" not in buffer:
            chunk = os.read(from_chrome_r, 1 << 16)
            if not chunk:
                sys.exit("chromium closed the pipe")
            buffer += chunk
        raw, buffer = buffer.split(b"\0", 1)
        reply = json.loads(raw)
        if reply.get("id") == next_id:
            if "error" in reply:
                sys.exit(f"{method}: {reply['error']}")
            return reply.get("result", {})


try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Page.enable", session=session)
    call("Page.navigate", {"url": url}, session=session)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        result = call("Runtime.evaluate", {"expression": "document.body && document.body.dataset.paint || ''",
                                           "returnByValue": True}, session=session)
        value = result.get("result", {}).get("value", "")
        if value:
            print(value)
            break
        time.sleep(0.05)
    else:
        sys.exit("the page reported no paint figures within 30 s")
finally:
    proc.kill()
    proc.wait()
    # Chromium's helpers may still be writing into the profile for a moment.
    for _ in range(20):
        shutil.rmtree(profile, ignore_errors=True)
        if not os.path.exists(profile):
            break
        time.sleep(0.05)
