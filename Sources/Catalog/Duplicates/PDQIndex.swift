public import MediaTypes
import Foundation
import TweetModel
#if canImport(Glibc)
internal import Glibc
#endif

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
/// query from several threads; kept beside the catalog (``PDQIndexFile``) so that a
/// process starting finds it made. Slots are the positions of ``hashes``.
public struct PDQIndex: Sendable {
    /// Every hash filed, by slot.
    public let hashes: [PDQHash]
    /// The pieces of the first ``filed`` hashes, by value; nil when not searchable.
    let table: PieceTable?
    /// Slots the table holds; later ones (hashes added since the table was written,
    /// ``PDQIndexFile``) are compared one by one.
    let filed: Int

    /// Where each piece's values' slots are: for each piece, the offsets of each
    /// value's slots (65,537 of them) and the slots sorted by value, in memory made by
    /// ``PDQIndex/init(_:searchable:)`` or in a file mapped by ``PDQIndexFile``.
    final class PieceTable: @unchecked Sendable {
        /// 16 x 65,537 offsets into ``postings``' piece.
        let offsets: UnsafeBufferPointer<UInt32>
        /// 16 x `slots` slots.
        let postings: UnsafeBufferPointer<UInt32>
        let slots: Int
        private let release: Release

        enum Release {
            case allocated(UnsafeMutableRawPointer)
            case mapped(UnsafeMutableRawPointer, Int)
        }

        init(offsets: UnsafeBufferPointer<UInt32>, postings: UnsafeBufferPointer<UInt32>, slots: Int, release: Release) {
            self.offsets = offsets
            self.postings = postings
            self.slots = slots
            self.release = release
        }

        deinit {
            switch release {
            case let .allocated(pointer): pointer.deallocate()
            case let .mapped(pointer, length): munmap(pointer, length)
            }
        }

        /// Bytes of a table of `slots` slots.
        static func byteCount(slots: Int) -> Int { 16 * (65_537 + slots) * 4 }
    }

    /// Files `hashes`. Without `searchable` the pieces are not filed (a list for
    /// ``PDQJoin``, 70 bytes a hash lighter) and searches compare every hash.
    public init(_ hashes: [PDQHash], searchable: Bool = true) {
        precondition(hashes.count < Int(UInt32.max), "a PDQ index holds fewer than 2^32 hashes")
        self.hashes = hashes
        filed = searchable ? hashes.count : 0
        guard searchable else {
            table = nil
            return
        }
        let count = hashes.count
        let memory = UnsafeMutableRawPointer.allocate(byteCount: PieceTable.byteCount(slots: count), alignment: 8)
        let offsets = memory.bindMemory(to: UInt32.self, capacity: 16 * (65_537 + count))
        let postings = offsets + 16 * 65_537
        let keys = Self.pieces(of: hashes)
        for piece in 0..<16 {
            let start = offsets + piece * 65_537
            start.initialize(repeating: 0, count: 65_537)
            for slot in 0..<count { start[Int(keys[slot * 16 + piece]) + 1] += 1 }
            for value in 0..<65_536 { start[value + 1] += start[value] }
            var cursor = [UInt32](UnsafeBufferPointer(start: start, count: 65_537))
            let slots = postings + piece * count
            for slot in 0..<count {
                let value = Int(keys[slot * 16 + piece])
                (slots + Int(cursor[value])).initialize(to: UInt32(slot))
                cursor[value] += 1
            }
        }
        table = PieceTable(offsets: UnsafeBufferPointer(start: offsets, count: 16 * 65_537),
                           postings: UnsafeBufferPointer(start: postings, count: 16 * count), slots: count,
                           release: .allocated(memory))
    }

    /// `hashes`, of which the first `table.slots` are filed in `table`.
    init(hashes: [PDQHash], table: PieceTable) {
        precondition(table.slots <= hashes.count)
        self.hashes = hashes
        self.table = table
        filed = table.slots
    }

    public var count: Int { hashes.count }

    /// The sixteen pieces of every hash, sixteen a hash (``PDQHash/pieces(into:)``), on
    /// every core.
    static func pieces(of hashes: [PDQHash]) -> [UInt16] {
        var keys = [UInt16](repeating: 0, count: hashes.count * 16)
        keys.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let base = out.baseAddress
            let slices = ParallelSlices.split(hashes.indices, parts: ProcessInfo.processInfo.activeProcessorCount)
            DispatchQueue.concurrentPerform(iterations: slices.count) { lane in
                // Each lane writes its own slots' keys.
                for slot in slices[lane] { hashes[slot].pieces(into: base! + slot * 16) }
            }
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
        guard radius <= 2, let table else {
            // Past 47 bits the buckets to read outnumber the hashes: compare them all.
            for (slot, hash) in hashes.enumerated() {
                if let d = query.distance(to: hash, atMost: threshold) { found(slot, d) }
            }
            return
        }
        var keys = [UInt16](repeating: 0, count: 16)
        keys.withUnsafeMutableBufferPointer { query.pieces(into: $0.baseAddress!) }
        let filed = self.filed
        hashes.withUnsafeBufferPointer { hashes in
            let (q0, q1, q2, q3) = query.words
            for piece in 0..<16 {
                let key = keys[piece]
                let offsets = UnsafeBufferPointer(rebasing: table.offsets[(piece * 65_537)..<((piece + 1) * 65_537)])
                let postings = UnsafeBufferPointer(rebasing: table.postings[(piece * filed)..<((piece + 1) * filed)])
                // No early exit on the first words: a candidate is a cache miss, and a
                // branch on its bits (taken half the time) would stop the processor
                // from loading the next candidates while it waits.
                func bucket(_ value: UInt16) {
                    // A mapped file is trusted no further than its bounds (``PDQIndexFile``).
                    let start = min(Int(offsets[Int(value)]), filed), end = min(Int(offsets[Int(value) + 1]), filed)
                    guard start < end else { return }
                    for i in start..<end {
                        let slot = Int(postings[i])
                        guard slot < filed else { continue }
                        let h = hashes[slot].words
                        let d = (q0 ^ h.0).nonzeroBitCount &+ (q1 ^ h.1).nonzeroBitCount
                            &+ (q2 ^ h.2).nonzeroBitCount &+ (q3 ^ h.3).nonzeroBitCount
                        if d <= threshold { found(slot, d) }
                    }
                }
                bucket(key)
                guard radius >= 1 else { continue }
                for a in 0..<16 {
                    bucket(key ^ UInt16(1 << a))
                    guard radius >= 2 else { continue }
                    for b in (a + 1)..<16 { bucket(key ^ UInt16(1 << a) ^ UInt16(1 << b)) }
                }
            }
            // Hashes added since the table was filed.
            for slot in filed..<hashes.count {
                if let d = query.distance(to: hashes[slot], atMost: threshold) { found(slot, d) }
            }
        }
    }
}
