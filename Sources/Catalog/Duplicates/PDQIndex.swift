public import MediaTypes

/// A multi-index over PDQ hashes (Norouzi, Punjani and Fleet's multi-index hashing, as
/// the reference's `mih.h`): finds every hash within a Hamming distance without
/// comparing against all of them.
///
/// Each hash is cut into sixteen 16-bit pieces (``PDQHash/pieces(into:)``) and filed under each piece's value. Two
/// hashes at most `16 r + 15` bits apart agree within `r` bits on at least one piece
/// (pigeonhole), so a query looks up only the buckets of values within `r` bits of its
/// own pieces: for PDQ's threshold 31, `r = 1`, 16 x 17 bucket reads, and at a million
/// hashes a few thousand candidates instead of a million. A BK-tree was the other
/// choice; at distance 31 of 256 it visits most of its nodes, and its pointers cost
/// more memory than these flat arrays (36 bytes a hash plus 256 KiB a piece).
///
/// Built once from every hash (counting sort per piece), then read-only and safe to
/// query from several threads. Slots are the positions of ``hashes``.
public struct PDQIndex: Sendable {
    /// Every hash filed, by slot.
    public let hashes: [PDQHash]
    /// For each piece, where each value's slots start in ``postings`` (65,537 offsets).
    private let offsets: [[UInt32]]
    /// For each piece, the slots sorted by the piece's value.
    private let postings: [[UInt32]]

    /// Files `hashes`. Without `searchable` the pieces are not filed (a list for
    /// ``PDQJoin``, 70 bytes a hash lighter) and searches compare every hash.
    public init(_ hashes: [PDQHash], searchable: Bool = true) {
        precondition(hashes.count < Int(UInt32.max), "a PDQ index holds fewer than 2^32 hashes")
        self.hashes = hashes
        var offsets: [[UInt32]] = []
        var postings: [[UInt32]] = []
        guard searchable else {
            self.offsets = []
            self.postings = []
            return
        }
        offsets.reserveCapacity(16)
        postings.reserveCapacity(16)
        let keys = Self.pieces(of: hashes)
        for piece in 0..<16 {
            var start = [UInt32](repeating: 0, count: 65_537)
            for slot in 0..<hashes.count { start[Int(keys[slot * 16 + piece]) + 1] += 1 }
            for value in 0..<65_536 { start[value + 1] += start[value] }
            var cursor = start
            var slots = [UInt32](repeating: 0, count: hashes.count)
            for slot in 0..<hashes.count {
                let value = Int(keys[slot * 16 + piece])
                slots[Int(cursor[value])] = UInt32(slot)
                cursor[value] += 1
            }
            offsets.append(start)
            postings.append(slots)
        }
        self.offsets = offsets
        self.postings = postings
    }

    public var count: Int { hashes.count }

    /// The sixteen pieces of every hash, sixteen a hash (``PDQHash/pieces(into:)``).
    static func pieces(of hashes: [PDQHash]) -> [UInt16] {
        var keys = [UInt16](repeating: 0, count: hashes.count * 16)
        keys.withUnsafeMutableBufferPointer { out in
            for (slot, hash) in hashes.enumerated() { hash.pieces(into: out.baseAddress! + slot * 16) }
        }
        return keys
    }

    /// One hash found near a query.
    public struct Match: Sendable, Hashable {
        public var slot: Int
        public var distance: Int
        /// Which of the queries it is nearest to (the first of them on a tie).
        public var query: Int
        public init(slot: Int, distance: Int, query: Int = 0) {
            self.slot = slot
            self.distance = distance
            self.query = query
        }
    }

    /// Every filed hash within `threshold` bits of any of `queries` (the dihedral
    /// hashes of one image, say), each once at its smallest distance, nearest first.
    public func search(_ queries: [PDQHash], threshold: Int) -> [Match] {
        var best: [Int: Match] = [:]
        for (index, query) in queries.enumerated() {
            visit(query, threshold: threshold) { slot, distance in
                if let known = best[slot], known.distance <= distance { return }
                best[slot] = Match(slot: slot, distance: distance, query: index)
            }
        }
        return best.values.sorted { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
    }

    /// Calls `found` for each slot within `threshold` of `query` (a slot may come more
    /// than once: it can share several pieces with the query).
    public func visit(_ query: PDQHash, threshold: Int, _ found: (Int, Int) -> Void) {
        guard threshold >= 0 else { return }
        let radius = threshold / 16
        guard radius <= 2, !offsets.isEmpty else {
            // Past 47 bits the buckets to read outnumber the hashes: compare them all.
            for (slot, hash) in hashes.enumerated() {
                if let d = query.distance(to: hash, atMost: threshold) { found(slot, d) }
            }
            return
        }
        var keys = [UInt16](repeating: 0, count: 16)
        keys.withUnsafeMutableBufferPointer { query.pieces(into: $0.baseAddress!) }
        hashes.withUnsafeBufferPointer { hashes in
            for piece in 0..<16 {
                let key = keys[piece]
                offsets[piece].withUnsafeBufferPointer { offsets in
                    postings[piece].withUnsafeBufferPointer { postings in
                        // No early exit on the first words: a candidate is a cache miss, and a
                        // branch on its bits (taken half the time) would stop the processor
                        // from loading the next candidates while it waits.
                        let (q0, q1, q2, q3) = query.words
                        func bucket(_ value: UInt16) {
                            let start = Int(offsets[Int(value)]), end = Int(offsets[Int(value) + 1])
                            for i in start..<end {
                                let slot = Int(postings[i])
                                let h = hashes[slot].words
                                let d = (q0 ^ h.0).nonzeroBitCount &+ (q1 ^ h.1).nonzeroBitCount
                                    &+ (q2 ^ h.2).nonzeroBitCount &+ (q3 ^ h.3).nonzeroBitCount
                                if d <= threshold { found(slot, d) }
                            }
                        }
                        bucket(key)
                        guard radius >= 1 else { return }
                        for a in 0..<16 {
                            bucket(key ^ UInt16(1 << a))
                            guard radius >= 2 else { continue }
                            for b in (a + 1)..<16 { bucket(key ^ UInt16(1 << a) ^ UInt16(1 << b)) }
                        }
                    }
                }
            }
        }
    }
}
