/// The viewer's static files, compiled in so the binary needs nothing beside it.
///
/// Plain HTML, CSS and ES2020 with no build step and no third-party code, so it
/// works offline. Tweet text reaches the page only through `textContent`, never
/// as markup: it comes from strangers. The scripts are in `ViewerAssets+List`
/// and `ViewerAssets+Zoom`.
enum ViewerAssets {
    /// The tweet list, served at `/`; `app.js` fills it from `/api/tweets`.
    static let indexHTML: String = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TweetCache</title>
<link rel="stylesheet" href="/static/viewer.css">
</head>
<body class="list">
<header class="top">
  <h1><a href="/">TweetCache</a></h1>
  <input id="q" type="search" placeholder="Search these tweets" aria-label="Search the loaded tweets" autocomplete="off">
  <span id="counts" class="counts" aria-live="polite"></span>
</header>
<div id="filterbar" class="filterbar" hidden>
  <span>Showing</span><span id="filters" class="filters"></span>
  <button id="clear" type="button">Clear filter</button>
</div>
<main class="layout">
  <section id="tweets" class="tweets"><p class="status">Loading…</p></section>
  <aside class="side">
    <h2>Hashtags</h2><div id="tags" class="chips"></div>
    <h2>People</h2><div id="users" class="chips"></div>
  </aside>
</main>
<script src="/static/app.js"></script>
</body>
</html>
"""#

    /// The zoom view, served at `/view/<sha256>`; `zoom.js` reads the hash from the path.
    static let zoomHTML: String = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TweetCache · zoom</title>
<link rel="stylesheet" href="/static/viewer.css">
</head>
<body class="zoom">
<canvas id="canvas" tabindex="0" aria-label="Zoomable image: drag to pan, wheel or pinch to zoom"></canvas>
<nav class="toolbar">
  <a id="back" class="btn" href="/" title="Back to the tweets">← Tweets</a>
  <button id="zin" class="btn" type="button" title="Zoom in (+)" aria-label="Zoom in">+</button>
  <button id="zout" class="btn" type="button" title="Zoom out (−)" aria-label="Zoom out">−</button>
  <button id="home" class="btn" type="button" title="Fit to window (0)" aria-label="Fit to window">⤢</button>
  <a id="orig" class="btn" target="_blank" rel="noopener noreferrer" title="The original file" hidden>Original</a>
  <span id="info" class="info"></span>
</nav>
<div id="msg" class="msg" role="alert" hidden></div>
<pre id="debug" class="debug" hidden></pre>
<script src="/static/zoom.js"></script>
</body>
</html>
"""#

    /// Both pages' styles, served at `/static/viewer.css`.
    static let css: String = #"""
:root {
  --bg: #f3f4f6; --card: #fff; --ink: #14171a; --muted: #657786; --line: #e1e8ed;
  --tag: #1d6fd8; --mention: #8a3ffc; --url: #0a7d4f; --accent: #1d9bf0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  color: var(--ink); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: inherit; text-decoration: none; }
a:hover { text-decoration: underline; }
[hidden] { display: none !important; }
button, input { font: inherit; }

.top { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center;
  padding: 10px 16px; background: rgba(255,255,255,.94); border-bottom: 1px solid var(--line); }
.top h1 { margin: 0; font-size: 20px; }
.top input { flex: 1 1 200px; max-width: 420px; padding: 7px 12px; border: 1px solid var(--line); border-radius: 999px; background: var(--bg); }
.counts { color: var(--muted); font-size: 14px; }
.filterbar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 16px; background: #e8f3fe; border-bottom: 1px solid #c7e1fb; font-size: 14px; }
.filters { display: flex; gap: 6px; flex-wrap: wrap; }
.filterbar button { padding: 3px 12px; border: 1px solid var(--accent); border-radius: 999px; background: #fff; color: var(--accent); cursor: pointer; }
.layout { display: grid; grid-template-columns: minmax(0, 600px) 240px; gap: 20px; justify-content: center; padding: 16px; }
.tweets { display: flex; flex-direction: column; gap: 12px; min-width: 0; }
.status { color: var(--muted); text-align: center; padding: 24px; }
.status.error { color: #b42318; }

.tweet { display: flex; gap: 12px; padding: 14px 16px; background: var(--card); border: 1px solid var(--line); border-radius: 14px; }
.avatar { flex: none; width: 48px; height: 48px; border-radius: 50%; overflow: hidden; background: #ccd6dd; }
.avatar img { width: 100%; height: 100%; object-fit: cover; display: block; }
.avatar .ph { display: flex; width: 100%; height: 100%; align-items: center; justify-content: center; color: #fff; font-weight: 700; font-size: 20px; }
.tweet .body { flex: 1; min-width: 0; }
.tweet header { display: flex; flex-wrap: wrap; gap: 0 6px; align-items: baseline; }
.name { font-weight: 700; overflow-wrap: anywhere; }
.handle, .when { color: var(--muted); font-size: 15px; }
.text { margin: 4px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.4; }
.hashtag { color: var(--tag); }
.cashtag { color: var(--tag); font-style: italic; }
.mention { color: var(--mention); }
.url { color: var(--url); text-decoration: underline; text-decoration-color: rgba(10,125,79,.35); }

.media { display: grid; grid-template-columns: 1fr 1fr; gap: 3px; margin-top: 10px; border-radius: 14px; overflow: hidden; border: 1px solid var(--line); }
.media.n1 { grid-template-columns: 1fr; }
.media.n3 > :first-child { grid-row: span 2; }
.media a, .media .missing { position: relative; display: block; min-height: 0; background: #e6ecf0; }
.media img { display: block; width: 100%; height: 100%; aspect-ratio: 16 / 10; object-fit: cover; }
.media.n1 img { height: auto; max-height: 500px; aspect-ratio: auto; object-fit: contain; }
.media.n3 > :first-child img { aspect-ratio: auto; }
.media .badge { position: absolute; left: 8px; bottom: 8px; padding: 2px 8px; border-radius: 6px; background: rgba(0,0,0,.7); color: #fff; font-size: 12px; }
.media .missing { display: flex; align-items: center; justify-content: center; aspect-ratio: 16 / 10; color: var(--muted); font-size: 13px; padding: 8px; text-align: center; }

.side h2 { font-size: 15px; margin: 4px 0 8px; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 16px; }
.chip { padding: 3px 10px; border-radius: 999px; background: var(--card); border: 1px solid var(--line); font-size: 13px; }
.chip small { color: var(--muted); margin-left: 4px; }
.chip.tag { color: var(--tag); }
.chip.user { color: var(--mention); }
.filterbar .chip { background: #fff; }

@media (max-width: 860px) {
  .top { position: static; }
  .layout { grid-template-columns: minmax(0, 1fr); padding: 10px; }
  .side { order: -1; }
  .side h2 { display: none; }
  .chips { margin-bottom: 4px; }
}

body.zoom { background: #111; color: #eee; overflow: hidden; }
body.zoom canvas { position: fixed; inset: 0; width: 100vw; height: 100vh; display: block; touch-action: none; cursor: grab; outline: none; }
body.zoom canvas.dragging { cursor: grabbing; }
.toolbar { position: fixed; top: 10px; left: 10px; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.btn { min-width: 36px; height: 36px; padding: 0 12px; border: 1px solid rgba(255,255,255,.25); border-radius: 8px;
  background: rgba(30,30,30,.85); color: #fff; font-size: 18px; line-height: 34px; text-align: center; cursor: pointer; }
a.btn { font-size: 15px; }
.btn:hover { background: rgba(70,70,70,.9); text-decoration: none; }
.info:empty { display: none; }
.info { padding: 4px 10px; border-radius: 8px; background: rgba(0,0,0,.55); font-size: 13px; }
.msg { position: fixed; top: 45%; left: 50%; transform: translate(-50%, -50%); max-width: 90vw; padding: 18px 24px; border-radius: 12px;
  background: #2a1a1a; border: 1px solid #a33; color: #fdd; font-size: 16px; }
.debug { position: fixed; right: 8px; bottom: 8px; margin: 0; padding: 6px 10px; background: rgba(0,0,0,.7); color: #8f8; font-size: 12px; }
"""#
}
