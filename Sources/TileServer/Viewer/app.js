// TweetCache tweet list. Tweet data comes from strangers: it only ever reaches
// the page through textContent, attributes set one by one, and checked URLs.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const SHA = /^[0-9a-f]{64}$/;
  const str = (v) => (typeof v === 'string' ? v : '');
  const arr = (v) => (Array.isArray(v) ? v : []);
  const obj = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
  const sha = (v) => (typeof v === 'string' && SHA.test(v) ? v : null);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  // The CLI's rules exactly (TweetModel/RelativeTime.swift): whole seconds, never negative.
  // The original app's rule, as TweetModel's RelativeTime: 53m, 1h 53m, 7h 53m, 4d (730d, never years).
  function relativeTime(nowMs, thenMs) {
    if (!Number.isFinite(nowMs) || !Number.isFinite(thenMs)) return '';
    const s = Math.max(0, Math.floor((nowMs - thenMs) / 1000));
    if (s < 3600) return Math.floor(s / 60) + 'm';
    if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
    return Math.floor(s / 86400) + 'd';
  }

  function httpURL(v) {
    if (typeof v !== 'string' || !v) return null;
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch { return null; }
  }

  // Entity ranges are half-open code point offsets; bad, overlapping or
  // out-of-range ones are dropped, never trusted.
  function segments(text, entities) {
    const cps = Array.from(text), e = obj(entities), found = [];
    for (const kind of ['hashtags', 'cashtags', 'mentions', 'urls', 'media']) {
      for (const item of arr(e[kind])) {
        const o = obj(item), s = o.start, end = o.end;
        if (Number.isInteger(s) && Number.isInteger(end) && s >= 0 && s < end && end <= cps.length) {
          found.push({ kind, s, end, o });
        }
      }
    }
    found.sort((a, b) => a.s - b.s || b.end - a.end);
    const out = [];
    let pos = 0;
    for (const x of found) {
      if (x.s < pos) continue;
      if (x.s > pos) out.push({ kind: 'text', text: cps.slice(pos, x.s).join('') });
      out.push({ ...x, text: cps.slice(x.s, x.end).join('') });
      pos = x.end;
    }
    if (pos < cps.length) out.push({ kind: 'text', text: cps.slice(pos).join('') });
    return out;
  }

  const params = () => new URLSearchParams(location.search);

  function filterHref(change) {
    const p = params();
    p.delete('q');
    for (const [k, v] of Object.entries(change)) { if (v) p.set(k, v); else p.delete(k); }
    const q = p.toString();
    return '/' + (q ? '?' + q : '');
  }

  function filterLink(text, change, cls) {
    const a = el('a', cls, text);
    a.href = filterHref(change);
    a.addEventListener('click', (ev) => {
      if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
      ev.preventDefault();
      history.pushState(null, '', a.href);
      load();
      // With a token on the server, a hashtag or user is also searched for live.
      if (live && (change.tag || change.user)) startLive(change.tag ? '#' + change.tag : '@' + change.user);
    });
    return a;
  }

  function renderText(t) {
    const p = el('p', 'text');
    for (const seg of segments(str(t.text), t.entities)) {
      if (seg.kind === 'hashtags') {
        const tag = str(seg.o.tag) || seg.text.replace(/^[#＃]/, '');
        p.append(filterLink(seg.text, { tag }, 'hashtag'));
      } else if (seg.kind === 'mentions') {
        const user = str(seg.o.username) || seg.text.replace(/^[@＠]/, '');
        p.append(filterLink(seg.text, { user }, 'mention'));
      } else if (seg.kind === 'cashtags') {
        p.append(el('span', 'cashtag', seg.text));
      } else if (seg.kind === 'urls') {
        const expanded = httpURL(seg.o.expanded_url), href = expanded || httpURL(seg.o.url);
        if (!href) { p.append(seg.text); continue; }
        const a = el('a', 'url', expanded ? str(seg.o.display_url) || str(seg.o.expanded_url) : seg.text);
        a.href = href;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        a.title = href;
        p.append(a);
      } else if (seg.kind !== 'media') {
        // The media link's t.co text is dropped: the photos are shown below.
        p.append(seg.text);
      }
    }
    return p;
  }

  function placeholder(name, key) {
    const d = el('span', 'ph', (Array.from(name.trim())[0] || '?').toUpperCase());
    let h = 0;
    for (const c of key) h = (h * 31 + c.charCodeAt(0)) % 360;
    d.style.backgroundColor = `hsl(${h} 45% 50%)`;
    return d;
  }

  function renderAvatar(author, screen, name) {
    const link = screen ? filterLink('', { user: screen }, 'avatar') : el('span', 'avatar');
    link.setAttribute('aria-label', name || screen || 'author');
    const s = sha(obj(author.avatar).sha256);
    if (s) {
      const img = el('img');
      img.alt = '';
      img.loading = 'lazy';
      img.src = `/thumb/${s}/150`;
      img.addEventListener('error', () => img.replaceWith(placeholder(name || screen, screen)), { once: true });
      link.append(img);
    } else {
      link.append(placeholder(name || screen, screen));
    }
    return link;
  }

  function renderMedia(list) {
    const items = arr(list).map(obj).filter((m) => Object.keys(m).length);
    if (!items.length) return null;
    const box = el('div', `media n${Math.min(items.length, 4)}`);
    for (const m of items) {
      const s = sha(m.sha256), type = str(m.type);
      if (!s) {
        const why = obj(m.error);
        box.append(el('div', 'missing', `${type || 'media'} not cached${why.code ? ' (' + str(why.code) + ')' : ''}`));
        continue;
      }
      const a = el('a');
      a.href = `/view/${s}`;
      a.title = 'Zoom';
      const img = el('img');
      img.loading = 'lazy';
      img.decoding = 'async';
      img.alt = str(m.alt_text) || (type === 'photo' ? 'photo' : `${type || 'media'} preview`);
      if (Number.isInteger(m.width) && Number.isInteger(m.height) && m.width > 0 && m.height > 0) {
        img.width = m.width;
        img.height = m.height;
      }
      img.src = `/thumb/${s}/600`;
      img.addEventListener('error', () => a.replaceWith(el('div', 'missing', 'thumbnail unavailable')), { once: true });
      a.append(img);
      if (type === 'video' || type === 'animated_gif') a.append(el('span', 'badge', type === 'video' ? '▶ video' : 'GIF'));
      box.append(a);
    }
    return box;
  }

  // Media marked sensitive (X possibly_sensitive, Mastodon sensitive or a content
  // warning, Bluesky adult or graphic labels) is blurred until clicked, as the apps
  // do; while veiled, a click shows it instead of following the image's link.
  function veil(box) {
    box.classList.add('sensitive');
    const button = el('button', 'veil', 'Sensitive media · show');
    button.type = 'button';
    const show = (event) => {
      if (!box.classList.contains('sensitive')) return;
      event.preventDefault();
      event.stopPropagation();
      box.classList.remove('sensitive');
      button.remove();
    };
    box.addEventListener('click', show, true);
    box.append(button);
    return box;
  }

  // A content warning (Mastodon spoiler_text) comes first; the text and media after
  // it wait for "Show more".
  function warned(t, parts) {
    const cw = str(t.spoiler_text).trim();
    if (!cw) return parts;
    const line = el('p', 'cw', cw + ' ');
    const more = el('button', 'cw-more', 'Show more');
    more.type = 'button';
    line.append(more);
    for (const part of parts) part.hidden = true;
    more.addEventListener('click', (event) => {
      event.stopPropagation();
      const hide = !parts[0].hidden;
      for (const part of parts) part.hidden = hide;
      more.textContent = hide ? 'Show more' : 'Show less';
    });
    return [line, ...parts];
  }

  const isSensitive = (t) => t.sensitive === true || str(t.spoiler_text).trim() !== '';

  function renderTweet(raw, nowMs) {
    const t = obj(raw), author = obj(t.author);
    const screen = str(author.screen_name), name = str(author.name);
    const card = el('article', 'tweet');
    card.dataset.id = str(t.id);
    const body = el('div', 'body'), head = el('header');
    head.append(screen ? filterLink(name || screen, { user: screen }, 'name') : el('span', 'name', name || 'unknown'));
    if (screen) head.append(filterLink('@' + screen, { user: screen }, 'handle'));
    // The server says where a post and its author live on their network (Network's links).
    const links = obj(t.links), networkName = str(links.network_name) || 'X';
    const page = httpURL(links.post), profile = httpURL(links.profile);
    if (profile) {
      const out = el('a', 'profile', '↗');
      out.href = profile;
      out.target = '_blank';
      out.rel = 'noopener noreferrer';
      out.title = 'profile on ' + networkName;
      head.append(out);
    }
    if (str(t.network) && t.network !== 'x') head.append(el('span', 'network', networkName));
    const created = Date.parse(str(t.created_at));
    if (Number.isFinite(created)) {
      const time = el('time', 'when', '· ' + relativeTime(nowMs, created));
      time.dateTime = str(t.created_at);
      time.title = new Date(created).toLocaleString();
      if (page) {
        const link = el('a', 'permalink');
        link.href = page;
        link.target = '_blank';
        link.rel = 'noopener noreferrer';
        link.append(time);
        head.append(link);
      } else {
        head.append(time);
      }
    }
    const media = renderMedia(t.media);
    if (media && isSensitive(t)) veil(media);
    body.append(head, ...warned(t, media ? [renderText(t), media] : [renderText(t)]));
    card.append(renderAvatar(author, screen, name), body);
    // A click on the card itself (not one of its links) opens the tweet's detail view.
    if (str(t.id)) {
      card.classList.add('opens');
      card.addEventListener('click', (event) => {
        if (event.target.closest('a')) return;
        location.hash = '#/tweet/' + encodeURIComponent(str(t.id));
      });
    }
    return card;
  }

  // The app's detail screen: the tweet, then Images, URLs, Hashtags and Users, each
  // only when it has entries, in that order. The URL (#/tweet/<id>) is the state, so
  // the browser's back button returns to the list, at the scroll position it had.
  function section(title, items) {
    if (!items.length) return null;
    const s = el('section', 'detail-section');
    s.append(el('h2', null, title));
    const list = el('div', 'detail-items');
    list.append(...items);
    s.append(list);
    return s;
  }

  function renderDetail(t, nowMs) {
    const e = obj(t.entities), author = obj(t.author);
    const back = el('a', 'back', '← Back');
    back.href = '#';
    back.addEventListener('click', (event) => {
      event.preventDefault();
      if (cameFromList) history.back(); else location.hash = '';
    });
    const images = arr(t.media).map(obj).filter((m) => sha(m.sha256)).map((m) => {
      const a = el('a', 'detail-image');
      a.href = `/view/${sha(m.sha256)}`;
      const img = el('img');
      img.alt = str(m.alt_text);
      img.loading = 'lazy';
      img.src = `/thumb/${sha(m.sha256)}/150`;
      a.append(img);
      return a;
    });
    const urls = arr(e.urls).map(obj).map((u) => httpURL(u.expanded_url) || httpURL(u.url)).filter(Boolean)
      .filter((u, i, all) => all.indexOf(u) === i).map((u) => {
        const a = el('a', 'url', u);
        a.href = u;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        return a;
      });
    const tags = arr(e.hashtags).map(obj).map((h) => str(h.tag)).filter(Boolean)
      .filter((h, i, all) => all.findIndex((x) => x.toLowerCase() === h.toLowerCase()) === i)
      .map((h) => chip('#' + h, null, { tag: h, user: null }, 'tag'));
    const names = [str(author.screen_name), ...arr(e.mentions).map(obj).map((m) => str(m.username))].filter(Boolean)
      .filter((n, i, all) => all.findIndex((x) => x.toLowerCase() === n.toLowerCase()) === i);
    const users = names.map((n) => chip('@' + n, null, { user: n, tag: null }, 'user'));
    const view = $('detail');
    const also = el('section', 'detail-section also');
    also.hidden = true;
    const imageSection = section('Images', images);
    if (imageSection && isSensitive(t)) veil(imageSection.querySelector('.detail-items'));
    view.replaceChildren(back, renderTweet(t, nowMs),
      ...[imageSection, also, section('URLs', urls), section('Hashtags', tags), section('Users', users)].filter(Boolean));
    view.querySelector('.tweet').classList.remove('opens');
    loadAlsoPosted(t, also);
  }

  // "Also posted in": the posts of the cached photos that look like this tweet's
  // (PDQ near-duplicates from /api/duplicates), earliest first, each a link to its
  // detail view. Filled in when the answers come; hidden when there are none.
  async function loadAlsoPosted(t, target) {
    const own = str(t.id);
    const hashes = arr(t.media).map(obj).map((m) => sha(m.sha256)).filter(Boolean);
    const seen = new Set([own]);
    const rows = [];
    for (const h of hashes) {
      let answer;
      try {
        const r = await fetch(`/api/duplicates/${h}`);
        if (!r.ok) continue;
        answer = obj(await r.json());
      } catch (err) { continue; }
      for (const d of arr(answer.near_duplicates).map(obj)) {
        if (!sha(d.sha256)) continue;
        for (const p of arr(d.posts).map(obj)) {
          const id = str(p.id);
          if (!id || seen.has(id)) continue;
          seen.add(id);
          rows.push({ post: p, image: d });
        }
      }
    }
    if (!rows.length || !target.isConnected) return;
    rows.sort((a, b) => str(a.post.created_at).localeCompare(str(b.post.created_at)));
    const list = el('div', 'detail-items also-list');
    for (const { post, image } of rows) {
      const a = el('a', 'also-post');
      a.href = `#/tweet/${encodeURIComponent(str(post.id))}`;
      const thumb = el('img');
      thumb.loading = 'lazy';
      thumb.alt = '';
      thumb.src = `/thumb/${sha(image.sha256)}/150`;
      const when = str(post.created_at).slice(0, 10);
      const how = image.distance === 0 ? 'the same picture' : `${image.distance} bits apart`;
      const turned = image.transform ? `, ${str(image.transform)}` : '';
      a.append(thumb, el('span', 'also-text', `@${str(post.screen_name)} · ${str(post.network)}${when ? ' · ' + when : ''} · ${how}${turned}`));
      list.append(a);
    }
    target.replaceChildren(el('h2', null, 'Also posted in'), list);
    target.hidden = false;
  }

  let listScroll = 0, cameFromList = false;

  // A tweet opened by its URL may not be on a page loaded yet: asked for by id, once.
  const fetchedTweets = new Map();

  function route() {
    const m = /^#\/tweet\/(.+)$/.exec(location.hash);
    let id = null;
    try { id = m ? decodeURIComponent(m[1]) : null; } catch (err) { id = null; }
    const t = id && data ? (arr(data.tweets).map(obj).find((x) => str(x.id) === id) || fetchedTweets.get(id)) : null;
    if (id && data && !t && !fetchedTweets.has(id)) {
      fetchedTweets.set(id, null);
      fetch('/api/tweets?id=' + encodeURIComponent(id), { headers: { Accept: 'application/json' } })
        .then((res) => (res.ok ? res.json() : null))
        .then((body) => { const found = arr(obj(body).tweets).map(obj)[0]; if (found) { fetchedTweets.set(id, found); route(); } })
        .catch(() => {});
    }
    const detail = $('detail'), list = $('tweets'), side = document.querySelector('.side');
    if (t) {
      if (detail.hidden) listScroll = window.scrollY;
      const nowMs = Date.parse(str(data.now));
      renderDetail(t, Number.isFinite(nowMs) ? nowMs : Date.now());
      detail.hidden = false;
      list.hidden = true;
      side.hidden = true;
      document.body.dataset.view = 'detail';
      window.scrollTo(0, 0);
    } else {
      if (id && data) detail.replaceChildren(el('p', 'status', fetchedTweets.has(id) ? 'This tweet is not in the cache.' : 'Loading…'));
      const wasDetail = !detail.hidden;
      detail.hidden = !(id && data);
      list.hidden = !detail.hidden;
      side.hidden = !detail.hidden;
      document.body.dataset.view = detail.hidden ? 'list' : 'missing';
      if (wasDetail && detail.hidden) window.scrollTo(0, listScroll);
    }
  }

  function chip(label, count, change, cls) {
    const a = filterLink(label, change, 'chip ' + cls);
    if (count != null) a.append(el('small', null, String(count)));
    return a;
  }

  let data = null, loadSeq = 0, historyShown = false;

  // The last 100 searches, newest first (the file `tweetcache history` shows). Each runs
  // again: live when the server has a token, else on the cached tweets (a #tag or
  // @user as that filter, other text as the search box), which the page says once.
  function historyHref(query) {
    const q = str(query).trim();
    const user = /^@([A-Za-z0-9_.@-]+)$/.exec(q) || /^from:([A-Za-z0-9_.-]+)$/.exec(q);
    if (/^#[^\s#]+$/.test(q)) return '/?tag=' + encodeURIComponent(q.slice(1));
    if (user) return '/?user=' + encodeURIComponent(user[1]);
    return '/?q=' + encodeURIComponent(q);
  }

  async function loadHistory() {
    if (historyShown || !operator.signedIn) return;
    historyShown = true;
    let feed;
    try {
      const res = await fetch('/api/history', { headers: { Accept: 'application/json' } });
      if (!res.ok) return;
      feed = obj(await res.json());
    } catch (err) { return; }
    const nowMs = Date.now();
    const items = arr(feed.searches).map(obj).filter((s) => str(s.query)).slice(0, 100).map((s) => {
      const li = el('li');
      const a = el('a', 'history-query', str(s.query));
      a.href = historyHref(s.query);
      a.addEventListener('click', (ev) => {
        if (!live || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
        ev.preventDefault();
        history.pushState(null, '', a.href);
        load();
        startLive(str(s.query));
      });
      const at = Date.parse(str(s.at));
      const when = el('small', null, (s.network && s.network !== 'x' && s.network !== 'files' ? s.network + ' · ' : '')
        + (Number.isFinite(at) ? relativeTime(nowMs, at) : ''));
      if (Number.isFinite(at)) when.title = new Date(at).toLocaleString();
      li.append(a, ' ', when);
      return li;
    });
    $('history').replaceChildren(...items);
    historyCount = items.length;
    renderNote();
  }

  // Said once, plainly, when a search or filter ran on the cached tweets only.
  let historyCount = 0;
  function renderNote() {
    const p = params(), note = $('history-note');
    // A visitor of a server others reach: the history and live search are the operator's.
    if (!operator.signedIn) {
      note.hidden = false;
      if (operator.access === 'token') {
        const a = el('a', null, 'sign in');
        a.href = '/signin';
        note.replaceChildren('Live search and the search history are for this server\'s operator: ', a,
          '. Searches here filter the cached tweets.');
      } else {
        note.textContent = 'Live search and the search history are off on this server'
          + (operator.reason ? ` (${operator.reason})` : '') + '. Searches here filter the cached tweets.';
      }
      return;
    }
    note.hidden = live || !(historyCount || p.get('tag') || p.get('user') || p.get('q'));
    note.textContent = note.hidden ? '' : 'Live search needs a token (start tweetcache serve with $TWEETCACHE_BEARER_TOKEN '
      + 'or --token-file); searches here filter the cached tweets.';
  }

  // What this visitor may do (/api/operator): on loopback everything; on a server
  // others reach, live search and history once signed in as the operator.
  let operator = { access: 'open', signedIn: true, reason: '' };
  async function loadOperator() {
    try {
      const res = await fetch('/api/operator', { headers: { Accept: 'application/json' } });
      const feed = obj(res.ok ? await res.json() : null);
      operator = { access: str(feed.access), signedIn: feed.signed_in === true, reason: str(feed.reason) };
    } catch (err) { operator = { access: 'off', signedIn: false, reason: '' }; }
  }

  // Live search: POST /api/search starts it on the server (the same client as
  // `tweetcache search`), then GET /api/search?after=N answers each change as it
  // happens (a long poll, so the page follows without a timer); when its media are
  // cached the list loads again and shows them.
  let live = false, searchVersion = 0, following = false, ownSearch = null;

  function searchText(s) {
    const n = (v) => (Number.isInteger(v) ? v : 0);
    const q = str(s.query);
    switch (s.state) {
      case 'searching': return `Searching ${q}… ${noun(n(s.pages), 'page')}, ${noun(n(s.tweets), 'result')}`;
      case 'waiting': {
        const until = Date.parse(str(s.wait_until));
        return `Rate limited: waiting${Number.isFinite(until) ? ' until ' + new Date(until).toLocaleTimeString() : ''} (${noun(n(s.tweets), 'result')} so far)`;
      }
      case 'fetching': return `Caching the media of ${noun(n(s.tweets), 'result')} for ${q}: ${n(s.fetch_done)} of ${n(s.fetch_total)}`;
      case 'done': return `${q}: ${noun(n(s.tweets), 'result')} from ${noun(n(s.pages), 'page')}, media cached`
        + (n(s.waits) ? `, after ${noun(n(s.waits), 'rate-limit wait')}` : '')
        + (n(s.fetch_failed) ? ` (${n(s.fetch_failed)} failed)` : '') + (str(s.message) ? ` — ${str(s.message)}` : '') + '.';
      case 'failed': return `Search for ${q} failed: ${str(s.message) || 'unknown error'}`;
      default: return '';
    }
  }

  function showSearch(s) {
    const box = $('search-status');
    if (!s) { box.hidden = true; return; }
    box.textContent = searchText(s);
    box.dataset.state = str(s.state);
    box.hidden = false;
  }

  async function follow() {
    if (following) return;
    following = true;
    try {
      for (;;) {
        const res = await fetch('/api/search?after=' + searchVersion, { headers: { Accept: 'application/json' } });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const feed = obj(await res.json());
        if (Number.isInteger(feed.version)) searchVersion = feed.version;
        const s = obj(feed.search);
        showSearch(feed.search ? s : null);
        if (s.state === 'done' || s.state === 'failed' || !feed.search) {
          if (s.state === 'done' && s.id === ownSearch) { ownSearch = null; historyShown = false; load(); }
          break;
        }
      }
    } catch (err) {
      $('search-status').textContent = `Lost the search's progress: ${err && err.message ? err.message : err}`;
    } finally {
      following = false;
    }
  }

  async function startLive(query) {
    const q = str(query).trim();
    if (!live || !q) return;
    try {
      const res = await fetch('/api/search', {
        method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ query: q }),
      });
      if (res.status === 409 || !res.ok) {
        const why = (await res.text()).trim();
        showSearch({ state: 'failed', query: q, message: why || `HTTP ${res.status}` });
        return;
      }
      const feed = obj(await res.json());
      ownSearch = obj(feed.search).id;
      if (Number.isInteger(feed.version)) searchVersion = feed.version;
      showSearch(obj(feed.search));
      follow();
    } catch (err) {
      showSearch({ state: 'failed', query: q, message: err && err.message ? err.message : String(err) });
    }
  }

  async function initLive() {
    await loadOperator();
    if (!operator.signedIn) { live = false; renderNote(); return; }
    try {
      const res = await fetch('/api/search', { headers: { Accept: 'application/json' } });
      const feed = obj(res.ok ? await res.json() : null);
      live = feed.available === true;
      if (Number.isInteger(feed.version)) searchVersion = feed.version;
      const s = obj(feed.search);
      if (feed.search && (s.state !== 'done' && s.state !== 'failed')) { showSearch(s); follow(); }
    } catch (err) { live = false; }
    renderNote();
    // A link may ask for the search itself: /?tag=x&live=1 (once: the flag leaves the URL).
    const p = params();
    if (p.get('live') === '1') {
      p.delete('live');
      history.replaceState(null, '', '/' + (p.toString() ? '?' + p : '') + location.hash);
      const query = p.get('tag') ? '#' + p.get('tag') : p.get('user') ? '@' + p.get('user') : p.get('q');
      if (query) startLive(query);
    }
  }

  // The list is loaded a page at a time (/api/tweets?cursor=…): the next page when
  // the end of the list comes near, so 10,000 cached tweets cost one page at first.
  const noun = (n, w) => `${n.toLocaleString('en-US')} ${w}${n === 1 ? '' : 's'}`;

  function renderCounts() {
    const all = arr(data && data.tweets);
    const total = Number.isInteger(data && data.total) && data.total > all.length ? data.total : all.length;
    const photos = all.reduce((n, t) => n + arr(obj(t).media).filter((m) => sha(obj(m).sha256)).length, 0);
    $('counts').textContent = (total > all.length ? `${all.length.toLocaleString('en-US')} of ${noun(total, 'tweet')}` : noun(total, 'tweet'))
      + ` · ${noun(photos, 'image')}`;
  }

  function nowOf(feed) {
    const nowMs = Date.parse(str(feed && feed.now));
    return Number.isFinite(nowMs) ? nowMs : Date.now();
  }

  function tweetsFragment(list) {
    const frag = document.createDocumentFragment(), now = nowOf(data);
    for (const t of list) {
      try { frag.append(renderTweet(t, now)); } catch (err) { console.warn('tweet skipped', err); }
    }
    return frag;
  }

  function renderList() {
    const listEl = $('tweets'), all = arr(data && data.tweets);
    renderCounts();
    if (!all.length) {
      listEl.replaceChildren(el('p', 'status', params().get('q') ? 'No tweet matches the search.' : 'No tweets.'));
      return;
    }
    const more = el('p', 'status more', data.next ? 'Loading more…' : '');
    more.id = 'more';
    more.hidden = !data.next;
    listEl.replaceChildren(tweetsFragment(all), more);
    watchEnd(more);
  }

  let endWatcher = null, loadingMore = false;
  function watchEnd(more) {
    if (endWatcher) endWatcher.disconnect();
    if (!data.next || typeof IntersectionObserver !== 'function') return;
    endWatcher = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) loadMore();
    }, { rootMargin: '1200px 0px' });
    endWatcher.observe(more);
  }

  async function loadMore() {
    if (!data || !data.next || loadingMore) return;
    loadingMore = true;
    const seq = loadSeq, api = apiParams(), more = $('more');
    api.set('cursor', data.next);
    try {
      const res = await fetch('/api/tweets?' + api, { headers: { Accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = obj(await res.json());
      if (seq !== loadSeq) return;
      const page = arr(body.tweets);
      data.tweets = arr(data.tweets).concat(page);
      data.next = typeof body.next === 'string' && body.next ? body.next : null;
      more.before(tweetsFragment(page));
      more.hidden = !data.next;
      renderCounts();
    } catch (err) {
      if (seq !== loadSeq) return;
      more.textContent = `Could not load more tweets: ${err && err.message ? err.message : err}`;
      more.classList.add('error');
      data.next = null;
      return;
    } finally {
      loadingMore = false;
    }
    // Still in sight (a tall window, or a fast scroll): the observer will not fire again.
    if (data.next && more.getBoundingClientRect().top < window.innerHeight + 1200) loadMore();
  }

  // New posts as they arrive (a `watch` caching batches, another machine's sync):
  // the first page is asked again every 15 s while the page is visible, and posts
  // newer than the first one shown go on top, without a reload or a lost scroll.
  const freshEvery = 15000;
  async function checkFresh() {
    if (document.hidden || !data || loadingMore) return;
    const seq = loadSeq, api = apiParams();
    try {
      const res = await fetch('/api/tweets' + (api.toString() ? '?' + api : ''), { headers: { Accept: 'application/json' } });
      if (!res.ok || seq !== loadSeq) return;
      const body = obj(await res.json());
      if (seq !== loadSeq || !data) return;
      const shown = new Set(arr(data.tweets).map((t) => str(obj(t).id)));
      const fresh = [];
      for (const t of arr(body.tweets)) {
        if (shown.has(str(obj(t).id))) break;
        fresh.push(t);
      }
      if (!fresh.length || !shown.size) {
        if (!shown.size && arr(body.tweets).length) { data = body; if (!(typeof data.next === 'string' && data.next)) data.next = null; renderSide(); renderList(); }
        return;
      }
      data.tweets = fresh.concat(arr(data.tweets));
      if (Number.isInteger(body.total)) data.total = body.total;
      const listEl = $('tweets'), frag = tweetsFragment(fresh);
      for (const card of frag.children) card.classList.add('fresh');
      listEl.prepend(frag);
      renderCounts();
    } catch (err) { /* the next check tries again */ }
  }
  setInterval(checkFresh, freshEvery);
  document.addEventListener('visibilitychange', () => { if (!document.hidden) checkFresh(); });

  function renderSide() {
    const tags = $('tags'), users = $('users');
    tags.replaceChildren(...arr(data && data.tags).map(obj).filter((t) => str(t.tag)).slice(0, 20)
      .map((t) => chip('#' + t.tag, Number.isInteger(t.count) ? t.count : null, { tag: t.tag, user: null }, 'tag')));
    users.replaceChildren(...arr(data && data.users).map(obj).filter((u) => str(u.screen_name)).slice(0, 20)
      .map((u) => chip('@' + u.screen_name, Number.isInteger(u.count) ? u.count : null, { user: u.screen_name, tag: null }, 'user')));
  }

  function renderFilterBar() {
    const p = params(), tag = p.get('tag'), user = p.get('user');
    renderNote();
    $('filterbar').hidden = !tag && !user;
    const f = $('filters');
    f.replaceChildren();
    if (tag) f.append(chip('#' + tag + ' ✕', null, { tag: null }, 'tag'));
    if (user) f.append(chip('@' + user + ' ✕', null, { user: null }, 'user'));
    document.title = tag || user ? `TweetCache · ${tag ? '#' + tag : ''}${tag && user ? ' ' : ''}${user ? '@' + user : ''}` : 'TweetCache';
  }

  function apiParams() {
    const p = params(), api = new URLSearchParams();
    for (const k of ['tag', 'user', 'q', 'limit']) { const v = p.get(k); if (v) api.set(k, v); }
    return api;
  }

  async function load() {
    const seq = ++loadSeq, p = params(), api = apiParams();
    if (document.activeElement !== $('q')) $('q').value = p.get('q') || '';
    renderFilterBar();
    try {
      const res = await fetch('/api/tweets' + (api.toString() ? '?' + api : ''), { headers: { Accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = await res.json();
      if (seq !== loadSeq) return;
      data = obj(body);
      if (!(typeof data.next === 'string' && data.next)) data.next = null;
    } catch (err) {
      if (seq !== loadSeq) return;
      data = null;
      $('counts').textContent = '';
      $('tweets').replaceChildren(el('p', 'status error', `Could not load tweets: ${err && err.message ? err.message : err}`));
      return;
    }
    renderSide();
    renderList();
    route();
    loadHistory();
    if (document.body.dataset.ready !== '1') {
      document.body.dataset.ready = '1';
      // ?debug: when the first page of tweets was painted (bench/viewer-first-paint.sh).
      if (params().has('debug')) {
        requestAnimationFrame(() => setTimeout(() => {
          const fcp = performance.getEntriesByName('first-contentful-paint')[0];
          document.body.dataset.paint = JSON.stringify({
            firstContentfulPaintMs: fcp ? Math.round(fcp.startTime) : null,
            listPaintedMs: Math.round(performance.now()),
            tweetsShown: document.querySelectorAll('#tweets > .tweet').length,
          });
        }, 0));
      }
    }
  }

  $('clear').addEventListener('click', () => { history.pushState(null, '', '/'); load(); });
  $('q').addEventListener('input', () => {
    const p = params(), q = $('q').value;
    if (q) p.set('q', q); else p.delete('q');
    history.replaceState(null, '', '/' + (p.toString() ? '?' + p : ''));
    load();
  });
  window.addEventListener('popstate', (event) => {
    // A change of the #/tweet/… part alone is the detail view opening or closing.
    if (location.hash.startsWith('#/tweet/') || (data && !$('detail').hidden)) return;
    load();
  });
  window.addEventListener('hashchange', (event) => {
    cameFromList = location.hash.startsWith('#/tweet/') && !new URL(event.oldURL).hash;
    route();
  });
  $('q').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && live) startLive($('q').value);
  });
  window.__list = { relativeTime, segments };
  initLive().then(load);
})();
