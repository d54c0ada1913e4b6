import BlobStore

/// The `blobs` numbers of hashes the catalog's writer met lately, so most references
/// are numbered without asking SQLite: a million posts name 120,000 blobs about 1.9
/// million times, most of them avatars and photos many posts share.
///
/// A fixed table indexed by the hash's own leading bits (a digest is already
/// uniform), one hash a slot, the newest winning: memory is the same however many
/// blobs a read names, and a hash is never hashed again. Kept for one read (every
/// run of it), on the writer's thread; a read that fails drops it with its
/// transactions.
final class BlobNumbers {
    private var slots: [(hash: BlobHash, number: Int64)]
    private let mask: Int

    /// `capacity` slots, a power of two.
    init(capacity: Int = 1 << 10) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0)
        mask = capacity - 1
        slots = Array(repeating: (BlobHash(bytes: [UInt8](repeating: 0, count: BlobHash.byteCount))!, 0), count: capacity)
    }

    /// A table for a read of `bytes` of manifests: a slot for every 16 KB (a post is
    /// about 2 KB and names two blobs, most of them named before), from 1,024 to
    /// 131,072 slots (40 bytes each: 5 MB at most, from a manifest of 2 GB).
    convenience init(forReading bytes: Int) {
        var capacity = 1 << 10
        while capacity < 1 << 17 && capacity * 16_384 < bytes { capacity <<= 1 }
        self.init(capacity: capacity)
    }

    /// The number remembered for `hash`, if any (SQLite's numbers start at 1).
    func number(of hash: BlobHash) -> Int64? {
        let slot = slots[index(hash)]
        return slot.number != 0 && slot.hash == hash ? slot.number : nil
    }

    func remember(_ number: Int64, for hash: BlobHash) {
        slots[index(hash)] = (hash, number)
    }

    private func index(_ hash: BlobHash) -> Int { Int(truncatingIfNeeded: hash.leadingWord) & mask }
}
