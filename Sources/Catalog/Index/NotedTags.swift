/// The hashtags a read has already put in `tag_counts`, so a big read writes each
/// tag's row once rather than once a batch: a batch of 2,000 posts names hundreds of
/// tags, nearly all of them met before, and the million-post catalog corpus asked
/// SQLite for 287,481 `INSERT OR IGNORE`s to keep 1,578 rows.
///
/// Only a hint, never the record: a tag not noted (the set is full) is written again
/// and SQLite ignores it. The first spelling read stays the tag's, as before. Kept for
/// one read, on the writer's thread; a read that fails drops it with its transactions,
/// and `tag_counts` loses no row until the read's end recounts it.
final class NotedTags {
    private var keys: Set<String> = []
    private let capacity: Int

    /// At most `capacity` tags are noted (at about 50 bytes each, 3 MB for the default).
    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
    }

    /// Whether `key` must be written: false once it was noted.
    func needsWriting(_ key: String) -> Bool {
        guard !keys.contains(key) else { return false }
        if keys.count < capacity { keys.insert(key) }
        return true
    }
}
