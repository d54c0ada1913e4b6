/// The posts a run has written, to keep each post once per manifest however many
/// pages repeat it, in about 8 bytes a post (a `Set<String>` of a million ids takes
/// ~60 MB).
///
/// Numeric ids (X, Mastodon) are kept as their value, exactly. Others (Bluesky's
/// `at://` URIs) as a 64-bit hash with the top bit set, so they never meet a
/// numeric one: two distinct ids of a run collide with odds of about n²/2⁶⁴ (one in
/// ten million at a million posts), and the later is then left out.
/// New ids go to a small set; when it fills, they are merged into a sorted array.
struct PostIDSet {
    private var sorted: [UInt64] = []
    private var recent = Set<UInt64>()
    static let mergeEvery = 1 << 16

    var count: Int { sorted.count + recent.count }

    /// True when `id` was not in the set.
    mutating func insert(_ id: String) -> Bool {
        let key = Self.key(id)
        if recent.contains(key) || contains(sorted: key) { return false }
        recent.insert(key)
        if recent.count >= Self.mergeEvery { merge() }
        return true
    }

    static func key(_ id: String) -> UInt64 {
        if let n = UInt64(id), n < 1 << 63, id.utf8.first != UInt8(ascii: "0") || id == "0" { return n }
        var hasher = Hasher()
        hasher.combine(id)
        return UInt64(bitPattern: Int64(hasher.finalize())) | 1 << 63
    }

    private func contains(sorted key: UInt64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == key
    }

    private mutating func merge() {
        let fresh = recent.sorted()
        recent.removeAll(keepingCapacity: true)
        var merged: [UInt64] = []
        merged.reserveCapacity(sorted.count + fresh.count)
        var i = 0, j = 0
        while i < sorted.count || j < fresh.count {
            if j == fresh.count || i < sorted.count && sorted[i] < fresh[j] {
                merged.append(sorted[i]); i += 1
            } else {
                merged.append(fresh[j]); j += 1
            }
        }
        sorted = merged
    }
}
