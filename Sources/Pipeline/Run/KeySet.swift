/// What a run has met, exactly, in about 8 bytes each: the posts it has written (to
/// keep each post once per manifest however many pages repeat it; a `Set<String>` of a
/// million ids takes ~60 MB), and the hashes of the URLs and images it has met (to
/// count each once; a `Set<Int>` keeps up to twice its count in buckets).
///
/// Numeric post ids (X, Mastodon) are kept as their value, exactly. Others (Bluesky's
/// `at://` URIs) as a 64-bit hash with the top bit set, so they never meet a
/// numeric one: two distinct ids of a run collide with odds of about n²/2⁶⁴ (one in
/// ten million at a million posts), and the later is then left out.
///
/// New keys go to a small set; when it fills, they are merged into sorted blocks of a
/// few thousand keys each, block by block. One sorted array was merged into a copy of
/// itself: at a million posts 8 MB more for the moment of each merge, which is what
/// a run's peak memory is made of.
struct KeySet {
    /// Sorted, each block's ids below the next block's first.
    private var blocks: [[UInt64]] = []
    private var recent = Set<UInt64>()
    private let mergeEvery: Int
    private let blockSize: Int

    init(mergeEvery: Int = 1 << 14, blockSize: Int = 1 << 13) {
        self.mergeEvery = mergeEvery
        self.blockSize = blockSize
    }

    private(set) var count = 0

    /// True when the post `id` was not in the set.
    mutating func insert(postID id: String) -> Bool {
        insert(key: Self.key(id))
    }

    /// True when `hash` (a `hashValue` of this process) was not in the set.
    mutating func insert(hash: Int) -> Bool {
        insert(key: UInt64(bitPattern: Int64(hash)))
    }

    /// True when `key` was not in the set.
    mutating func insert(key: UInt64) -> Bool {
        if recent.contains(key) || contains(sorted: key) { return false }
        recent.insert(key)
        count += 1
        if recent.count >= mergeEvery { merge() }
        return true
    }

    static func key(_ id: String) -> UInt64 {
        if let n = UInt64(id), n < 1 << 63, id.utf8.first != UInt8(ascii: "0") || id == "0" { return n }
        var hasher = Hasher()
        hasher.combine(id)
        return UInt64(bitPattern: Int64(hasher.finalize())) | 1 << 63
    }

    /// The block `key` belongs in: the last whose first id is not above it (the first
    /// block for keys below every block).
    private func block(for key: UInt64) -> Int {
        var low = 1, high = blocks.count
        while low < high {
            let mid = (low + high) / 2
            if blocks[mid][0] <= key { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    private func contains(sorted key: UInt64) -> Bool {
        guard !blocks.isEmpty else { return false }
        let ids = blocks[block(for: key)]
        var low = 0, high = ids.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low < ids.count && ids[low] == key
    }

    /// Merges the recent ids into the blocks they fall in; a block grown past twice
    /// the size is cut into blocks of the size. Blocks no new id falls in are kept
    /// as they are, and each old block goes as its new one is made.
    private mutating func merge() {
        let fresh = recent.sorted()
        recent.removeAll(keepingCapacity: true)
        var merged: [[UInt64]] = []
        merged.reserveCapacity(blocks.count + fresh.count / blockSize + 1)
        var j = 0
        for i in blocks.indices {
            let upper = i + 1 < blocks.count ? blocks[i + 1][0] : .max
            var end = j
            while end < fresh.count && (fresh[end] < upper || i + 1 == blocks.count) { end += 1 }
            if end == j {
                merged.append(blocks[i])
            } else {
                append(Self.merge(blocks[i], fresh[j..<end]), to: &merged)
                j = end
            }
            blocks[i] = []
        }
        if blocks.isEmpty { append(fresh, to: &merged) }
        blocks = merged
    }

    private func append(_ ids: [UInt64], to merged: inout [[UInt64]]) {
        guard ids.count > 2 * blockSize else { return merged.append(ids) }
        var start = 0
        while start < ids.count {
            // The last piece takes what is left when that is under a block.
            let end = ids.count - start < 2 * blockSize ? ids.count : start + blockSize
            merged.append(Array(ids[start..<end]))
            start = end
        }
    }

    private static func merge(_ a: [UInt64], _ b: ArraySlice<UInt64>) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = b.startIndex
        while i < a.count || j < b.endIndex {
            if j == b.endIndex || i < a.count && a[i] < b[j] {
                result.append(a[i]); i += 1
            } else {
                result.append(b[j]); j += 1
            }
        }
        return result
    }
}
