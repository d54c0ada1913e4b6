import BlobStore

/// The `blobs` numbers of hashes the catalog's writer met lately, so most references
/// are numbered without asking SQLite: a million posts name 120,000 blobs about 1.9
/// million times, most of them avatars and photos many posts share.
///
/// A fixed table indexed by the hash's own leading bits (a digest is already
/// uniform), in sets of ``ways`` hashes, each set keeping its most recently used: memory
/// is the same however many blobs a read names, and a hash is never hashed again.
/// One hash a slot (the newest winning) asked SQLite again for 381,093 of the
/// million-post catalog corpus's 1,847,613 references to a blob it had numbered;
/// four a set, in the same memory, for 152,315 (the catalog's references in post
/// order, replayed through both tables).
///
/// Kept for one read (every run of it), on the writer's thread; a read that fails
/// drops it with its transactions.
///
/// A read into an empty `blobs` also keeps a filter of every hash it numbered (two bits
/// a hash, 16 bits a slot): a hash the filter has never seen is new, and is added
/// without first asking SQLite for a number it cannot have. Most of the questions a
/// read asks are of that kind (each of the corpus's 120,000 blobs is new once).
final class BlobNumbers {
    /// Set by set, most recently used first; an empty slot has the number 0.
    private var slots: [(hash: BlobHash, number: Int64)]
    private let setMask: Int
    /// The filter of every hash numbered in this read, when `blobs` was empty at its start.
    private var seen: [UInt64]
    private let seenMask: Int

    /// The hashes a set holds.
    static let ways = 4

    /// `capacity` slots, a power of two and at least ``ways``; `fromEmpty`: `blobs` has
    /// no row yet, and only this table's writer adds any while it lives.
    init(capacity: Int = 1 << 10, fromEmpty: Bool = false) {
        precondition(capacity >= Self.ways && capacity & (capacity - 1) == 0)
        setMask = capacity / Self.ways - 1
        slots = Array(repeating: (BlobHash(bytes: [UInt8](repeating: 0, count: BlobHash.byteCount))!, 0), count: capacity)
        seen = fromEmpty ? Array(repeating: 0, count: capacity / 4) : []
        seenMask = capacity * 16 - 1
    }

    /// A table for a read of `bytes` of manifests: a slot for every 16 KB (a post is
    /// about 2 KB and names two blobs, most of them named before), from 1,024 to
    /// 131,072 slots (40 bytes each: 5 MB at most, from a manifest of 2 GB).
    convenience init(forReading bytes: Int, fromEmpty: Bool = false) {
        var capacity = 1 << 10
        while capacity < 1 << 17 && capacity * 16_384 < bytes { capacity <<= 1 }
        self.init(capacity: capacity, fromEmpty: fromEmpty)
    }

    /// Whether SQLite may hold a number for `hash`: false only for a hash this read
    /// never numbered, when `blobs` was empty at its start. (A filter can be wrong
    /// only the other way: a new hash that shares both bits with others is asked for.)
    func mayBeNumbered(_ hash: BlobHash) -> Bool {
        guard !seen.isEmpty else { return true }
        let (a, b) = bits(hash)
        return seen[a >> 6] & (1 << (a & 63)) != 0 && seen[b >> 6] & (1 << (b & 63)) != 0
    }

    /// The number remembered for `hash`, if any (SQLite's numbers start at 1); the
    /// hash becomes its set's most recently used.
    func number(of hash: BlobHash) -> Int64? {
        let base = first(hash)
        for k in base..<base + Self.ways {
            let slot = slots[k]
            guard slot.number != 0 else { return nil }
            guard slot.hash == hash else { continue }
            if k > base { moveToFront(k, base: base) }
            return slot.number
        }
        return nil
    }

    /// Remembers a hash ``number(of:)`` did not know, in front of its set; the set's
    /// least recently used hash is forgotten.
    func remember(_ number: Int64, for hash: BlobHash) {
        if !seen.isEmpty {
            let (a, b) = bits(hash)
            seen[a >> 6] |= 1 << (a & 63)
            seen[b >> 6] |= 1 << (b & 63)
        }
        let base = first(hash)
        slots[base + Self.ways - 1] = (hash, number)
        moveToFront(base + Self.ways - 1, base: base)
    }

    /// Moves the slot `k` of the set at `base` to its front, the ones before it back by one.
    private func moveToFront(_ k: Int, base: Int) {
        let moved = slots[k]
        var i = k
        while i > base {
            slots[i] = slots[i - 1]
            i -= 1
        }
        slots[base] = moved
    }

    /// The filter's two bits for `hash`: digest bits apart from each other and from
    /// those that choose the set (``first(_:)``).
    private func bits(_ hash: BlobHash) -> (Int, Int) {
        let word = hash.leadingWord
        return (Int(truncatingIfNeeded: word >> 20) & seenMask, Int(truncatingIfNeeded: word >> 42) & seenMask)
    }

    private func first(_ hash: BlobHash) -> Int { (Int(truncatingIfNeeded: hash.leadingWord) & setMask) * Self.ways }
}
