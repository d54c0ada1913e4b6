internal import GRDB

extension CacheIndex {
    /// The schema, one migration per change, never edited once released:
    /// caches outlive builds, and an old cache must open in a new build.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: urls, failures, blobs, derived") { db in
            try db.execute(sql: """
                CREATE TABLE urls (
                    url TEXT PRIMARY KEY NOT NULL,
                    sha256 TEXT NOT NULL,
                    size INTEGER,
                    content_type TEXT,
                    http_status INTEGER,
                    fetched_at REAL,
                    last_access REAL
                );
                CREATE INDEX urls_by_sha256 ON urls(sha256);

                CREATE TABLE failures (
                    url TEXT PRIMARY KEY NOT NULL,
                    reason TEXT,
                    http_status INTEGER,
                    attempts INTEGER NOT NULL DEFAULT 1,
                    failed_at REAL
                );

                CREATE TABLE blobs (
                    sha256 TEXT PRIMARY KEY NOT NULL,
                    size INTEGER,
                    content_type TEXT,
                    width INTEGER,
                    height INTEGER,
                    created_at REAL,
                    last_access REAL
                );
                CREATE INDEX blobs_by_last_access ON blobs(last_access);

                CREATE TABLE derived (
                    sha256 TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    size_param TEXT NOT NULL DEFAULT '',
                    path TEXT NOT NULL,
                    width INTEGER,
                    height INTEGER,
                    bytes INTEGER,
                    PRIMARY KEY (sha256, kind, size_param)
                );
                """)
        }
        migrator.registerMigration("v2: pdq") { db in
            // One row per hashed image: quality and the 8 dihedral hashes, 32 bytes each
            // in the reference's order (the first is the image as displayed).
            try db.execute(sql: """
                CREATE TABLE pdq (
                    sha256 TEXT PRIMARY KEY NOT NULL,
                    quality INTEGER NOT NULL,
                    hashes BLOB NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v3: derived content hashes") { db in
            // Derived files are named by their source; what they hash to is recorded
            // when they are made, so a copy read back can be checked.
            try db.execute(sql: "ALTER TABLE derived ADD COLUMN content_sha256 TEXT")
            // The same for derived files this machine did not make and may not hold
            // (a bucket's thumbnails, as its manifests record them): `derived` lists
            // local files, which `verify` expects to find. Machines that made one
            // thumbnail differently (another quality) each record theirs: a copy is
            // sound when it is bytes some maker recorded.
            try db.execute(sql: """
                CREATE TABLE content_hashes (
                    path TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    PRIMARY KEY (path, sha256)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v4: decode warnings") { db in
            // Images shown as browsers show them although damaged say so in every
            // manifest, also when a run finds their thumbnails made.
            try db.execute(sql: "ALTER TABLE blobs ADD COLUMN decode_warning TEXT")
        }
        return migrator
    }
}
