/// A dictionary that keeps the most recently used entries, at most `capacity`, in two
/// generations: when the newer fills up it becomes the older and the older is
/// dropped. Lookups promote an older entry.
///
/// What a run keeps of the URLs and images it has met: a run of a million posts
/// meets a few hundred thousand, and the index answers for any forgotten.
struct RecentCache<Key: Hashable, Value> {
    let capacity: Int
    private var newer: [Key: Value] = [:]
    private var older: [Key: Value] = [:]

    init(capacity: Int) { self.capacity = max(2, capacity) }

    mutating func get(_ key: Key) -> Value? {
        if let value = newer[key] { return value }
        guard let value = older.removeValue(forKey: key) else { return nil }
        set(key, value)
        return value
    }

    mutating func set(_ key: Key, _ value: Value) {
        newer[key] = value
        if newer.count >= capacity / 2 {
            older = newer
            newer = [:]
        }
    }
}
