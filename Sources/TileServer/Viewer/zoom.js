// TweetCache zoom view: a Deep Zoom pyramid drawn on a canvas. Only the tiles in
// view at the level matching the screen are fetched; coarser levels already in
// the cache are drawn first, and the whole-image tile is always kept, so panning
// and zooming never show holes.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const canvas = $('canvas'), ctx = canvas.getContext('2d');
  const query = new URLSearchParams(location.search), debug = query.has('debug');
  const MAX_CACHE = 500, MAX_INFLIGHT = 8;
  const Z = (window.__zoom = {
    ready: false, level: -1, tilesLoaded: 0, tilesDrawn: 0, tilesNeeded: 0, tilesFailed: 0,
    scale: 0, fitScale: 0, maxLevel: 0, width: 0, height: 0, x: 0, y: 0, cached: 0, error: null,
    zoomAt, panBy, home,
  });

  let img = null;                 // the parsed .dzi plus its levels
  let s = 1, ox = 0, oy = 0;      // CSS px per image px; screen position of the image's top-left
  let cw = 1, ch = 1, dpr = 1, atHome = true, frame = 0, frameTimer = 0;
  const cache = new Map();        // "level/col/row" -> {state, bmp}; Map order is the LRU order
  let inflight = 0, wanted = [];

  const hash = (location.pathname.split('/').filter(Boolean).pop() || '').toLowerCase();

  function fail(text, code) {
    Z.error = text;
    document.body.dataset.error = code || 'error';
    const m = $('msg');
    m.textContent = text;
    m.hidden = false;
  }

  // Deep Zoom: maxLevel = ceil(log2(max(W, H))); level L is ceil(W / 2^(maxLevel-L)) wide.
  function parseDZI(xml) {
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    if (doc.getElementsByTagName('parsererror').length) throw new Error('not XML');
    const root = doc.documentElement, size = root.getElementsByTagNameNS('*', 'Size')[0];
    if (root.localName !== 'Image' || !size) throw new Error('no Image/Size element');
    const int = (e, name) => {
      const v = (e.getAttribute(name) || '').trim();
      if (!/^\d{1,10}$/.test(v)) throw new Error(`bad ${name}`);
      return Number(v);
    };
    const w = int(size, 'Width'), h = int(size, 'Height'), T = int(root, 'TileSize'), O = int(root, 'Overlap');
    const fmt = (root.getAttribute('Format') || 'jpg').toLowerCase();
    if (w < 1 || h < 1 || w > 2147483647 || h > 2147483647) throw new Error('bad size');
    if (T < 1 || T > 8192 || O >= T) throw new Error('bad tile size or overlap');
    if (!/^[a-z0-9]{1,8}$/.test(fmt)) throw new Error('bad format');
    let maxLevel = 0;
    while (2 ** maxLevel < Math.max(w, h)) maxLevel++;
    const levels = [];
    for (let l = 0; l <= maxLevel; l++) {
      const f = 2 ** (maxLevel - l), lw = Math.ceil(w / f), lh = Math.ceil(h / f);
      levels.push({ f, w: lw, h: lh, cols: Math.ceil(lw / T), rows: Math.ceil(lh / T) });
    }
    let base = 0;
    while (base < maxLevel && levels[base + 1].cols === 1 && levels[base + 1].rows === 1) base++;
    return { w, h, T, O, fmt, maxLevel, levels, base };
  }

  const tileURL = (l, c, r) => `/dzi/${hash}_files/${l}/${c}_${r}.${img.fmt}`;

  // Zoom limits: "home" fits the whole image but never enlarges it past 1:1;
  // zooming out stops there, zooming in at 2x native (or the fit size, if larger).
  const fitScale = () => Math.min(cw / img.w, ch / img.h);
  const minScale = () => Math.min(fitScale(), 1);
  const maxScale = () => Math.max(2, fitScale());

  function clampView() {
    s = Math.min(maxScale(), Math.max(minScale(), s));
    const iw = img.w * s, ih = img.h * s;
    ox = iw <= cw ? (cw - iw) / 2 : Math.min(0, Math.max(cw - iw, ox));
    oy = ih <= ch ? (ch - ih) / 2 : Math.min(0, Math.max(ch - ih, oy));
  }

  function home() {
    if (!img) return;
    s = minScale();
    atHome = true;
    clampView();
    invalidate();
  }

  // Scales by `factor` keeping the image point under (x, y) (CSS px) still.
  function zoomAt(x, y, factor) {
    if (!img || !(factor > 0)) return;
    const ix = (x - ox) / s, iy = (y - oy) / s;
    s *= factor;
    clampView();
    ox = x - ix * s;
    oy = y - iy * s;
    clampView();
    atHome = s <= minScale() + 1e-9;
    invalidate();
  }

  function panBy(dx, dy) {
    if (!img) return;
    ox += dx;
    oy += dy;
    clampView();
    invalidate();
  }

  function resize() {
    const cx = img ? (cw / 2 - ox) / s : 0, cy = img ? (ch / 2 - oy) / s : 0;
    cw = Math.max(1, canvas.clientWidth);
    ch = Math.max(1, canvas.clientHeight);
    dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(cw * dpr);
    canvas.height = Math.round(ch * dpr);
    if (!img) return invalidate();
    if (atHome) return home();
    ox = cw / 2 - cx * s;
    oy = ch / 2 - cy * s;
    clampView();
    invalidate();
  }

  function invalidate() {
    if (img) Object.assign(Z, { scale: s, x: ox, y: oy, fitScale: fitScale(), level: chooseLevel() });
    Z.ready = false;
    document.body.dataset.ready = '0';
    // The timer stands in for frames that do not come: headless Chromium under
    // virtual time (the screenshot tests) does not always run them.
    if (!frame) {
      frame = requestAnimationFrame(draw);
      frameTimer = setTimeout(draw, 50);
    }
  }

  // The coarsest level with at least one level pixel per device pixel.
  function chooseLevel() {
    const l = Math.ceil(img.maxLevel + Math.log2(s * dpr) - 1e-9);
    return Math.min(img.maxLevel, Math.max(0, l));
  }

  // Plain <img> loads: the browser's HTTP cache and connection limits apply, and
  // headless Chromium's virtual time (the screenshot tests) waits for them.
  function fetchTile(t) {
    const entry = { state: 'loading', bmp: null }, im = new Image();
    cache.set(t.key, entry);
    inflight++;
    const done = (ok) => {
      inflight--;
      if (ok) { entry.bmp = im; entry.state = 'loaded'; Z.tilesLoaded++; } else { entry.state = 'error'; Z.tilesFailed++; }
      evict();
      pump();
      invalidate();
    };
    im.onload = () => done(im.naturalWidth > 0);
    im.onerror = () => done(false);
    im.src = tileURL(t.l, t.c, t.r);
  }

  function pump() {
    while (inflight < MAX_INFLIGHT && wanted.length) {
      const t = wanted.shift();
      if (!cache.has(t.key)) fetchTile(t);
    }
  }

  function evict() {
    if (cache.size <= MAX_CACHE) return;
    const pinned = `${img.base}/0/0`;
    for (const [key, e] of cache) {
      if (cache.size <= MAX_CACHE) break;
      if (e.state === 'loading' || key === pinned) continue;
      cache.delete(key);
    }
  }

  // Draws the level's cached tiles in view; with `want`, queues the missing ones.
  function drawLevel(l, want) {
    const lv = img.levels[l], T = img.T, O = img.O, f = lv.f;
    const x0 = Math.max(0, -ox / s), x1 = Math.min(img.w, (cw - ox) / s);
    const y0 = Math.max(0, -oy / s), y1 = Math.min(img.h, (ch - oy) / s);
    const st = { needed: 0, drawn: 0, failed: 0 };
    if (x1 <= x0 || y1 <= y0) return st;
    const c0 = Math.floor(x0 / f / T), c1 = Math.min(lv.cols - 1, Math.ceil(x1 / f / T) - 1);
    const r0 = Math.floor(y0 / f / T), r1 = Math.min(lv.rows - 1, Math.ceil(y1 / f / T) - 1);
    // Level pixel p covers image pixels [p*f, min(W, (p+1)*f)): the last one may be partial.
    const X = (p) => Math.round((ox + Math.min(p * f, img.w) * s) * dpr);
    const Y = (p) => Math.round((oy + Math.min(p * f, img.h) * s) * dpr);
    const mx = cw / 2 / s - ox / s, my = ch / 2 / s - oy / s;
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        const key = `${l}/${c}/${r}`, e = cache.get(key);
        st.needed++;
        if (e && e.bmp) {
          // The tile image holds its core plus `O` pixels into each inner neighbour.
          const cx = c * T, cx1 = Math.min(lv.w, cx + T), cy = r * T, cy1 = Math.min(lv.h, cy + T);
          const tw = Math.min(lv.w, cx + T + O) - (c > 0 ? cx - O : 0);
          const th = Math.min(lv.h, cy + T + O) - (r > 0 ? cy - O : 0);
          const sx = e.bmp.naturalWidth / tw, sy = e.bmp.naturalHeight / th;
          const dx = X(cx), dy = Y(cy);
          ctx.drawImage(e.bmp, (c > 0 ? O : 0) * sx, (r > 0 ? O : 0) * sy, (cx1 - cx) * sx, (cy1 - cy) * sy,
            dx, dy, X(cx1) - dx, Y(cy1) - dy);
          cache.delete(key);
          cache.set(key, e);
          st.drawn++;
          if (debug && want) {
            ctx.strokeStyle = 'rgba(255,255,0,.8)';
            ctx.strokeRect(dx + 0.5, dy + 0.5, X(cx1) - dx - 1, Y(cy1) - dy - 1);
            ctx.fillStyle = '#ff0';
            ctx.fillText(`${l}/${c}_${r}`, dx + 4, dy + 12);
          }
        } else if (e && e.state === 'error') {
          st.failed++;
        } else if (want && !e) {
          const d = ((c + 0.5) * T * f - mx) ** 2 + ((r + 0.5) * T * f - my) ** 2;
          wanted.push({ key, l, c, r, d });
        }
      }
    }
    return st;
  }

  function draw() {
    cancelAnimationFrame(frame);
    clearTimeout(frameTimer);
    frame = 0;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#111';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (!img) return;
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = 'high';
    ctx.font = '11px monospace';
    const L = chooseLevel();
    wanted = [];
    ctx.save();
    ctx.beginPath();
    ctx.rect(ox * dpr, oy * dpr, img.w * s * dpr, img.h * s * dpr);
    ctx.clip();
    const baseKey = `${img.base}/0/0`, baseSt = drawLevel(img.base, L === img.base);
    if (!cache.has(baseKey) && !wanted.length) wanted.push({ key: baseKey, l: img.base, c: 0, r: 0, d: -1 });
    for (let l = Math.max(img.base + 1, L - 4); l < L; l++) drawLevel(l, false);
    const st = L === img.base ? baseSt : drawLevel(L, true);
    ctx.restore();
    wanted.sort((a, b) => a.d - b.d);
    pump();

    Object.assign(Z, {
      level: L, tilesDrawn: st.drawn, tilesNeeded: st.needed, scale: s, fitScale: fitScale(), x: ox, y: oy,
      ready: st.needed > 0 && st.drawn + st.failed === st.needed, cached: cache.size,
    });
    document.body.dataset.ready = Z.ready ? '1' : '0';
    document.body.dataset.level = String(L);
    document.body.dataset.tiles = `${st.drawn}/${st.needed}`;
    $('info').textContent = `${img.w} × ${img.h} · ${Math.round(s * 100)}%`;
    if (debug) {
      $('debug').hidden = false;
      $('debug').textContent = JSON.stringify({ ...Z, zoomAt: undefined, panBy: undefined, home: undefined, inflight }, null, 1);
    }
  }

  // Pointer input: one pointer pans, two pinch-zoom around their midpoint.
  const pointers = new Map();
  const local = (e) => { const b = canvas.getBoundingClientRect(); return { x: e.clientX - b.left, y: e.clientY - b.top }; };
  canvas.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    try { canvas.setPointerCapture(e.pointerId); } catch { /* synthetic or already gone */ }
    pointers.set(e.pointerId, local(e));
    canvas.classList.add('dragging');
  });
  canvas.addEventListener('pointermove', (e) => {
    const p = pointers.get(e.pointerId);
    if (!p) return;
    const q = local(e);
    if (pointers.size === 1) {
      panBy(q.x - p.x, q.y - p.y);
    } else {
      const [a, b] = [...pointers.values()].slice(0, 2);
      const before = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, d: Math.hypot(a.x - b.x, a.y - b.y) };
      p.x = q.x; p.y = q.y;
      const after = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, d: Math.hypot(a.x - b.x, a.y - b.y) };
      if (before.d > 0 && after.d > 0) zoomAt(before.x, before.y, after.d / before.d);
      panBy(after.x - before.x, after.y - before.y);
    }
    p.x = q.x; p.y = q.y;
  });
  const release = (e) => {
    pointers.delete(e.pointerId);
    if (!pointers.size) canvas.classList.remove('dragging');
  };
  canvas.addEventListener('pointerup', release);
  canvas.addEventListener('pointercancel', release);
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? ch : 1, p = local(e);
    zoomAt(p.x, p.y, Math.exp(-e.deltaY * unit * (e.ctrlKey ? 0.01 : 0.002)));
  }, { passive: false });
  canvas.addEventListener('dblclick', (e) => {
    const p = local(e);
    if (e.shiftKey) home(); else zoomAt(p.x, p.y, 2);
  });
  window.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const step = 0.2;
    const acts = {
      '+': () => zoomAt(cw / 2, ch / 2, 2), '=': () => zoomAt(cw / 2, ch / 2, 2),
      '-': () => zoomAt(cw / 2, ch / 2, 0.5), '_': () => zoomAt(cw / 2, ch / 2, 0.5), '0': home,
      ArrowLeft: () => panBy(cw * step, 0), ArrowRight: () => panBy(-cw * step, 0),
      ArrowUp: () => panBy(0, ch * step), ArrowDown: () => panBy(0, -ch * step),
    };
    if (acts[e.key]) { e.preventDefault(); acts[e.key](); }
  });
  $('zin').addEventListener('click', () => zoomAt(cw / 2, ch / 2, 2));
  $('zout').addEventListener('click', () => zoomAt(cw / 2, ch / 2, 0.5));
  $('home').addEventListener('click', home);
  window.addEventListener('resize', resize);

  // Back to the list the user came from, filters included.
  try {
    const ref = new URL(document.referrer);
    if (ref.origin === location.origin && ref.pathname === '/') $('back').href = ref.pathname + ref.search;
  } catch { /* no referrer */ }

  async function start() {
    resize();
    if (!/^[0-9a-f]{64}$/.test(hash)) return fail('This address does not name an image (expected /view/<sha256>).', 'badhash');
    document.title = `TweetCache · ${hash.slice(0, 12)}`;
    let res;
    try {
      res = await fetch(`/dzi/${hash}.dzi`);
    } catch (err) {
      return fail(`Could not reach the server: ${err.message || err}`, 'network');
    }
    if (res.status === 404) return fail('No zoomable image with this hash in the cache (404).', '404');
    if (!res.ok) return fail(`Could not load the image: HTTP ${res.status}.`, String(res.status));
    try {
      img = parseDZI(await res.text());
    } catch (err) {
      return fail(`The Deep Zoom descriptor is unreadable: ${err.message || err}.`, 'dzi');
    }
    Object.assign(Z, { maxLevel: img.maxLevel, width: img.w, height: img.h });
    $('orig').href = `/blob/${hash}`;
    $('orig').hidden = false;
    home();
    // Optional start view for tests and links: ?scale=<CSS px per image px> or
    // ?zoom=<factor over home>, with &x=<0..1>&y=<0..1> putting image point (x*W, y*H)
    // at the window's centre (clamped like any view).
    const sc = Number(query.get('scale')) || Number(query.get('zoom')) * minScale();
    const fx = Number(query.get('x') ?? 0.5), fy = Number(query.get('y') ?? 0.5);
    if (sc > 0 && Number.isFinite(fx) && Number.isFinite(fy)) {
      s = sc;
      clampView();
      ox = cw / 2 - fx * img.w * s;
      oy = ch / 2 - fy * img.h * s;
      clampView();
      atHome = false;
      invalidate();
    }
  }
  start();
})();
