#!/usr/bin/env python3
"""Turn a list of image URLs (one a line) into a v1.1 search/tweets page, one photo
per tweet, so `tweetcache fetch` can be timed on exactly the URLs a peer fetches.

Usage: make-results.py URLS_TXT > page.json
"""
import json
import sys

urls = [u.strip() for u in open(sys.argv[1]) if u.strip()]
statuses = []
for i, url in enumerate(urls):
    text = f"bench image {i} https://t.co/b{i:05d}"
    statuses.append({
        "id_str": str(1_000_000 + i),
        "created_at": "Sun Nov 22 06:00:00 +0000 2026",
        "full_text": text,
        "entities": {"hashtags": [], "urls": [], "user_mentions": []},
        "extended_entities": {"media": [{
            "id_str": str(9_000_000 + i), "type": "photo", "media_url_https": url,
            "url": f"https://t.co/b{i:05d}", "indices": [len(text) - 23, len(text)],
        }]},
        "user": {"id_str": "42", "screen_name": "bench", "name": "Bench"},
    })
json.dump({"statuses": statuses, "search_metadata": {"query": "bench", "count": len(statuses)}}, sys.stdout)
