#!/usr/bin/env python3
"""The peer archivists use for tweets (issue 26): `twitter-to-sqlite` (PyPI) saving
the same posts as `twitter-to-sqlite search` saves a search's results: its
`utils.save_tweets` on chunks of ten, each followed by the search run's rows, into its
own schema (tweets, users, media, sources, places, FTS over text and users).

The fetch corpus (bench/make-fetch-corpus.py) has the fields TweetCache reads; a real
v1.1 response has more, and save_tweets needs some of them (a tweet's numeric id and
`source`, a user's id, creation date, description, URL and counts): they are filled
with neutral values here, nothing else is changed.

Usage: twitter-to-sqlite-peer.py POSTS_JSONL N DB   (the first N posts; DB is replaced)
Says on stderr how many posts are saved after how long, every 10,000, so a run stopped
early still tells its pace.
"""
import json
import os
import sys
import datetime
import time
from twitter_to_sqlite import utils

path, limit, db_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(db_path + suffix):
        os.remove(db_path + suffix)
db = utils.open_database(db_path)
db["search_runs"].create({"id": int, "name": str, "args": str, "started": str, "hash": str}, pk="id")
run = db["search_runs"].insert({"name": "bench", "args": "{}", "started": datetime.datetime.utcnow().isoformat(),
                                "hash": "bench"}).last_pk


def complete(tweet):
    tweet["id"] = int(tweet["id_str"])
    tweet.setdefault("source", '<a href="https://example.com" rel="nofollow">bench</a>')
    user = tweet["user"]
    user["id"] = int(user["id_str"])
    user.setdefault("created_at", "Sun Nov 22 06:00:00 +0000 2020")
    for key in ("description", "url", "location"):
        user.setdefault(key, None)
    for key in ("followers_count", "friends_count", "listed_count", "favourites_count", "statuses_count"):
        user.setdefault(key, 0)
    return tweet


def save(chunk):
    utils.save_tweets(db, chunk)
    db["search_runs_tweets"].insert_all([{"search_run": run, "tweet": t["id"]} for t in chunk],
                                        pk=("search_run", "tweet"), replace=True)


started = time.monotonic()
seen = 0
chunk = []
with open(path) as lines:
    for line in lines:
        for tweet in json.loads(line)["statuses"]:
            if seen == limit:
                break
            chunk.append(complete(tweet))
            seen += 1
            if seen % 10_000 == 0:
                print(f"saved {seen - len(chunk)} posts in {time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
            if len(chunk) == 10:
                save(chunk)
                chunk = []
        if seen == limit:
            break
if chunk:
    save(chunk)
print(f"{seen} posts, {db['tweets'].count} tweets, {db['users'].count} users, {db['media'].count} media")
