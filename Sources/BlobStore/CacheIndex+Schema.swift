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
        return migrator
    }
}
