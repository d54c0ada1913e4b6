internal import GRDB

extension PostCatalog {
    /// The catalog's tables. It is an index of the manifests, never the record: a
    /// catalog from an older or newer build is dropped and rebuilt rather than
    /// migrated (``schemaVersion``), so this schema may change freely between builds.
    ///
    /// - `runs`: one row per manifest file read (size and modification time say when
    ///   the file changed behind the catalog's back), `complete` once every post is in.
    /// - `posts`: the newest copy of each post (`included` 1 for quoted and retweeted
    ///   ones): where its JSON is (`run`, `offset`, `length`: a byte range of that
    ///   run's manifest, decoded again when a reader wants the post) and the columns
    ///   its queries filter and sort on. `created` is seconds since 1970 (``undated``
    ///   when the post has no date) and `id_order` sorts ids as the lists do (``PostOrder``).
    /// - `post_tags`: hashtags (and cashtags) per post, lower-cased, with the post's
    ///   sort key repeated, so "newest with this tag" is one index range. Mentions and
    ///   URLs have no tables: no query asks for them (the post's own JSON holds them),
    ///   and their two trees were written for every post (schema 17 and before).
    /// - `blobs`: every blob any run named, before newer runs replaced its posts: what
    ///   `gc` must keep (the catalog starts over when a run it read changes or goes, so
    ///   nothing else ever leaves it). Its `id` stands for the hash everywhere else: a
    ///   million posts name 120,000 blobs about 1.9 million times, and their 32 bytes in
    ///   every reference, its index and a per-run list of them were a quarter of the
    ///   catalog (231 of 920 MB).
    /// - `refs`: every blob a current post uses (avatar, media, videos) and what it is
    ///   to that post: `info`, `ls` and `stats` read these.
    /// - `authors`, `tag_counts`: counts for the viewer's facets, and `blob_uses`, the
    ///   uses of each blob by kind (what `stats` and `ls` say of it, by hash: its 32
    ///   bytes), all kept as posts come and go.
    /// - `searches`: the queries of each run's inputs.
    /// - `problems`: manifest files that could not be read (or posts in them), so each
    ///   is read once.
    /// - `pending`: work a big read left for its end (`counts`: the facet counts and
    ///   blobs' uses are made from the tables then, ``PostCatalog/recount(_:)``; `fts`:
    ///   the posts' words, written beside the catalog by a ``FullTextBuilder``); a read
    ///   cut short leaves the row, and the next refresh does it (for `fts`, by starting
    ///   over).
    /// - `images_pdq`: the PDQ signature of each photo the manifests hashed (quality and
    ///   the 8 dihedral hashes, 32 bytes each, the original first); its `id` numbers the
    ///   near-duplicate index (``PDQIndex``), which is built from it.
    /// - `run_pages`: each run's posts with photos (``PostRow/photos``) by result file
    ///   (`source`, the index of the first of the run's `sources` with its path) in
    ///   pages of at most ``runPageSize``, in file order, as the byte ranges in the
    ///   manifest (`ranges`: 8 bytes of offset and 4 of length a post, little-endian).
    ///   Every copy of a post, not just the newest: a run's IIIF documents show the run
    ///   as it was written, a page read straight from its bytes (``runPage(path:source:page:)``).
    /// - `posts_fts`: FTS5 over text, author name, handle and hashtags of the posts
    ///   (not included ones), its rowid the post's.
    ///
    /// The indexes are ``indexes``: a catalog read from nothing is filled without them
    /// and they are made at the end (sorting once beats a million random inserts).
    static let schema = """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            generated_at REAL NOT NULL,
            size INTEGER NOT NULL,
            mtime INTEGER NOT NULL,
            tweets INTEGER NOT NULL,
            included INTEGER NOT NULL,
            complete INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE problems (
            path TEXT PRIMARY KEY NOT NULL,
            size INTEGER NOT NULL,
            mtime INTEGER NOT NULL,
            message TEXT NOT NULL
        );
        CREATE TABLE pending (
            what TEXT PRIMARY KEY NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE searches (
            run INTEGER NOT NULL,
            source TEXT NOT NULL,
            query TEXT,
            tweets INTEGER NOT NULL,
            search TEXT,
            newest_id TEXT,
            newest_at REAL,
            reached INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE posts (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            included INTEGER NOT NULL,
            run INTEGER NOT NULL,
            offset INTEGER NOT NULL,
            length INTEGER NOT NULL,
            created REAL NOT NULL,
            id_order TEXT NOT NULL,
            user TEXT NOT NULL,
            handle TEXT NOT NULL,
            query TEXT,
            photos INTEGER NOT NULL,
            network TEXT NOT NULL DEFAULT 'x',
            UNIQUE (included, id)
        );
        CREATE TABLE post_tags (
            post INTEGER NOT NULL,
            tag TEXT NOT NULL,
            created REAL NOT NULL,
            id_order TEXT NOT NULL,
            PRIMARY KEY (post, tag)
        ) WITHOUT ROWID;
        CREATE TABLE blobs (
            id INTEGER PRIMARY KEY,
            sha256 BLOB NOT NULL UNIQUE
        );
        CREATE TABLE refs (
            post INTEGER NOT NULL,
            slot INTEGER NOT NULL,
            blob INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            PRIMARY KEY (post, slot)
        ) WITHOUT ROWID;
        CREATE TABLE authors (
            user TEXT PRIMARY KEY NOT NULL,
            handle TEXT NOT NULL,
            posts INTEGER NOT NULL
        );
        CREATE TABLE blob_uses (
            sha256 BLOB PRIMARY KEY NOT NULL,
            photo INTEGER NOT NULL,
            video INTEGER NOT NULL,
            avatar INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE tag_counts (
            tag TEXT PRIMARY KEY NOT NULL,
            display TEXT NOT NULL,
            posts INTEGER NOT NULL
        );
        CREATE TABLE run_pages (
            run INTEGER NOT NULL,
            source INTEGER NOT NULL,
            page INTEGER NOT NULL,
            posts INTEGER NOT NULL,
            ranges BLOB NOT NULL,
            PRIMARY KEY (run, source, page)
        ) WITHOUT ROWID;
        CREATE TABLE images_pdq (
            id INTEGER PRIMARY KEY,
            sha256 BLOB NOT NULL UNIQUE,
            quality INTEGER NOT NULL,
            hashes BLOB NOT NULL
        );
        \(fullTextTable);
        CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts WHEN old.included = 0 BEGIN
            DELETE FROM posts_fts WHERE rowid = old.rowid;
        END;
        """

    /// `posts_fts`, also made in the file a ``FullTextBuilder`` writes (its tables are
    /// copied into the catalog's as they are, so both must be made by this text).
    ///
    /// Prefixes of one, two and three letters are indexed: the last word of a search is
    /// a prefix (it is being typed), and a longer one is gathered from every term it
    /// begins. The one-letter index costs a fifth more index (64 → 77 MB at a million
    /// posts) and a tenth more time to build it (11.4 → 12.6 s, on the words' own
    /// thread); it makes `m` count in 28 ms instead of 160, `ul m` in 53 instead of 189.
    ///
    /// No column sizes (`columnsize = 0`): they serve FTS5's ranking, which no query
    /// asks (matches are listed by date), and their table, a row a post, was a tenth
    /// of the index's build (9.7-10.0 → 9.0 s in `sqlite3` at a million posts, before
    /// the final merge). The content stays:
    /// the substring search of queries without a word reads it, and deleting a post's
    /// words needs it.
    static let fullTextTable = """
        CREATE VIRTUAL TABLE posts_fts USING fts5(
            text, name, handle, tags,
            tokenize = 'unicode61 remove_diacritics 2',
            prefix = '1 2 3',
            detail = none,
            columnsize = 0
        )
        """

    /// Every index but the primary keys and `UNIQUE (included, id)` (which ingest
    /// itself asks), made if missing whenever the catalog opens.
    static let indexes = """
        CREATE INDEX IF NOT EXISTS searches_by_run ON searches(run);
        CREATE INDEX IF NOT EXISTS posts_in_order ON posts(included, created, id_order);
        CREATE INDEX IF NOT EXISTS posts_by_user ON posts(included, user, created, id_order);
        CREATE INDEX IF NOT EXISTS posts_by_query ON posts(included, query, created, id_order) WHERE query IS NOT NULL;
        CREATE INDEX IF NOT EXISTS post_tags_in_order ON post_tags(tag, created, id_order);
        CREATE INDEX IF NOT EXISTS refs_by_blob ON refs(blob, kind);
        CREATE INDEX IF NOT EXISTS authors_by_posts ON authors(posts);
        CREATE INDEX IF NOT EXISTS tag_counts_by_posts ON tag_counts(posts);
        """

    /// The tables of rows hanging off a post (`post` its rowid), removed with it.
    static let postRowTables = ["post_tags", "refs"]

    static let indexNames = [
        "searches_by_run", "posts_in_order", "posts_by_user", "posts_by_query", "post_tags_in_order", "refs_by_blob",
        "authors_by_posts", "tag_counts_by_posts",
    ]

    /// Bumped whenever ``schema`` or what ingest writes changes: a catalog with
    /// another `user_version` is rebuilt from the manifests.
    static let schemaVersion = 19
}
