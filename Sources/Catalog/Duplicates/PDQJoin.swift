import Foundation
import TweetModel
public import MediaTypes
internal import CTweetCache

/// Every pair of hashes within a distance, found by sorting instead of searching:
/// what `dupes` needs at a million photos, where a search per photo would read a few
/// thousand scattered hashes each (about a millisecond, a quarter of an hour in all).
///
/// The pigeonhole rule of ``PDQIndex`` holds for pairs too: two hashes at most 31 bits
/// apart agree within one bit on at least one of the sixteen 16-bit pieces. So, for each
/// piece in turn, the hashes are sorted by that piece (a counting sort into a copy laid
/// out in that order) and each run of equal values is compared with itself and with the
/// sixteen runs one bit away. Every comparison reads two contiguous runs, so the
/// processor streams them instead of waiting on memory for each. Matches are joined in
/// a union-find per core as they are found (no list of pairs: a picture reposted ten
/// thousand times would make fifty million), and the cores' sets are merged at the end.
///
/// Turned and mirrored copies: the hashes of each image turned by a transform are
/// sorted the same way and compared with the originals; a turn by 270° is the turn by
/// 90° seen from the other image, so six transforms besides the original cover all
/// eight.
public enum PDQJoin {
    /// The transforms whose hashes are compared with the originals, besides the originals themselves.
    public static let transforms: [PDQTransform] = [.rotate90, .rotate180, .flipX, .flipY, .flipPlus1, .flipMinus1]

    /// Calls `found(a, b)` (slots of `originals`, `a != b`) for pairs that connect every
    /// set of images linked by matches within `threshold` (at most 31): originals with
    /// originals, then `variants(t)` (the hashes of every image turned by `t`, slot for
    /// slot) with originals, for each of ``transforms``. Not every matching pair is
    /// reported, but joining the reported ones gives the same groups (single linkage).
    /// Runs on every core; `found` is called on the caller's thread.
    public static func pairs<E: Error>(
        originals: [PDQHash], threshold: Int, variants: (PDQTransform) throws(E) -> [PDQHash]?,
        found: (Int, Int) -> Void
    ) throws(E) {
        precondition(threshold <= 31, "the sorted join finds pairs within 31 bits; search beyond that")
        guard originals.count > 1 else { return }
        let lanes = ProcessInfo.processInfo.activeProcessorCount
        // One union-find per core, each touched by its core alone.
        var sets = (0..<lanes).map { _ in (0..<Int32(originals.count)).map { $0 } }
        for piece in 0..<16 {
            let sorted = Sorted(originals, piece: piece)
            join(sorted, sorted, threshold: threshold, same: true, into: &sets)
        }
        for transform in transforms {
            // The turned hashes live on only in their sorted copy: each piece's layout is
            // made from the last one, so a list is held once, not twice, at a million
            // photos 30 MB less (two copies of a list and the originals' at the peak).
            guard let turned = try variants(transform), turned.count == originals.count else { continue }
            var left = Sorted(turned, piece: 0)
            for piece in 0..<16 {
                if piece > 0 { left = Sorted(left, piece: piece) }
                let right = Sorted(originals, piece: piece)
                join(left, right, threshold: threshold, same: false, into: &sets)
            }
        }
        for var parent in sets {
            for slot in 0..<Int32(parent.count) {
                var root = slot
                while parent[Int(root)] != root { root = parent[Int(root)] }
                parent[Int(slot)] = root
                if root != slot { found(Int(root), Int(slot)) }
            }
        }
    }

    /// Hashes laid out in the order of one piece's value.
    struct Sorted: Sendable {
        /// Where each value's run starts (65,537 offsets).
        var start: [Int32]
        var hashes: [PDQHash]
        /// The slot in the list of each hash.
        var slots: [Int32]

        /// `list` (slot `i` at `i`) laid out by `piece`.
        init(_ list: [PDQHash], piece: Int) {
            self = list.withUnsafeBufferPointer { Sorted(input: $0, slots: nil, piece: piece) }
        }

        /// The same hashes as `other`, laid out by `piece` instead.
        init(_ other: Sorted, piece: Int) {
            self = other.hashes.withUnsafeBufferPointer { hashes in
                other.slots.withUnsafeBufferPointer { Sorted(input: hashes, slots: $0, piece: piece) }
            }
        }

        /// A counting sort on every core: each core counts the values of its share of
        /// the input, and then puts its share where the counts say, in input order within
        /// a value. The pieces are read from the hashes as they are counted (one piece,
        /// not a table of sixteen: 30 MB a list at a million) and kept until placed.
        private init(input: UnsafeBufferPointer<PDQHash>, slots from: UnsafeBufferPointer<Int32>?, piece: Int) {
            let count = input.count
            let parts = ParallelSlices.split(0..<count, parts: count >= 1 << 16 ? ProcessInfo.processInfo.activeProcessorCount : 1)
            var values = [UInt16](repeating: 0, count: count)
            // Per part, then per value: the part's count, and later where it puts its next hash.
            var cursors = [Int32](repeating: 0, count: parts.count * 65_536)
            values.withUnsafeMutableBufferPointer { valuesBuffer in
                cursors.withUnsafeMutableBufferPointer { cursorsBuffer in
                    nonisolated(unsafe) let values = valuesBuffer, counts = cursorsBuffer, input = input
                    DispatchQueue.concurrentPerform(iterations: parts.count) { part in
                        let base = part * 65_536
                        for i in parts[part] {
                            let value = input[i].piece(piece)
                            values[i] = value
                            counts[base + Int(value)] += 1
                        }
                    }
                }
            }
            var start = [Int32](repeating: 0, count: 65_537)
            var next: Int32 = 0
            for value in 0..<65_536 {
                start[value] = next
                for part in parts.indices {
                    let at = part * 65_536 + value
                    let counted = cursors[at]
                    cursors[at] = next
                    next += counted
                }
            }
            start[65_536] = next
            var slots = [Int32](repeating: 0, count: count)
            let hashes = [PDQHash](unsafeUninitializedCapacity: count) { hashesBuffer, done in
                slots.withUnsafeMutableBufferPointer { slotsBuffer in
                    values.withUnsafeBufferPointer { valuesBuffer in
                        cursors.withUnsafeMutableBufferPointer { cursorsBuffer in
                            nonisolated(unsafe) let hashes = hashesBuffer, slots = slotsBuffer, values = valuesBuffer
                            nonisolated(unsafe) let cursors = cursorsBuffer, input = input, from = from
                            DispatchQueue.concurrentPerform(iterations: parts.count) { part in
                                let base = part * 65_536
                                for i in parts[part] {
                                    let cursor = base + Int(values[i])
                                    let at = Int(cursors[cursor])
                                    cursors[cursor] += 1
                                    // Every place is written once: the counts add up to the input.
                                    (hashes.baseAddress! + at).initialize(to: input[i])
                                    slots[at] = from?[i] ?? Int32(i)
                                }
                            }
                        }
                    }
                }
                done = count
            }
            self.start = start
            self.hashes = hashes
            self.slots = slots
        }
    }

    /// Compares each run of `left` with the runs of `right` at its value and one bit
    /// away (the shim's loop: ``tc_hamming_join``), the values shared out over the cores,
    /// each joining its matches in its own union-find of `sets`. With `same`, left and
    /// right are one list: each pair once.
    static func join(_ left: Sorted, _ right: Sorted, threshold: Int, same: Bool, into sets: inout [[Int32]]) {
        let lanes = sets.count
        sets.withUnsafeMutableBufferPointer { setsBuffer in
            nonisolated(unsafe) let shared = setsBuffer
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                left.hashes.withUnsafeBufferPointer { lh in
                    right.hashes.withUnsafeBufferPointer { rh in
                        left.start.withUnsafeBufferPointer { ls in
                            right.start.withUnsafeBufferPointer { rs in
                                left.slots.withUnsafeBufferPointer { lslots in
                                    right.slots.withUnsafeBufferPointer { rslots in
                                        shared[lane].withUnsafeMutableBufferPointer { parent in
                                            let l = tc_sorted_hashes(
                                                hashes: UnsafeRawPointer(lh.baseAddress!).assumingMemoryBound(to: UInt64.self),
                                                start: ls.baseAddress, slots: lslots.baseAddress)
                                            let r = tc_sorted_hashes(
                                                hashes: UnsafeRawPointer(rh.baseAddress!).assumingMemoryBound(to: UInt64.self),
                                                start: rs.baseAddress, slots: rslots.baseAddress)
                                            _ = tc_hamming_join(l, r, same ? 1 : 0, Int32(threshold), UInt32(lane), UInt32(lanes),
                                                                parent.baseAddress)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
