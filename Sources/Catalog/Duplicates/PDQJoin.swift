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
        let keys = PDQIndex.pieces(of: originals)
        for piece in 0..<16 {
            let sorted = Sorted(originals, keys: keys, piece: piece)
            join(sorted, sorted, threshold: threshold, same: true, into: &sets)
        }
        for transform in transforms {
            guard let turned = try variants(transform), turned.count == originals.count else { continue }
            let turnedKeys = PDQIndex.pieces(of: turned)
            for piece in 0..<16 {
                let (left, right) = Sorted.pair((turned, turnedKeys), (originals, keys), piece: piece)
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
        var slots: [Int32]

        init(_ input: [PDQHash], keys: [UInt16], piece: Int) {
            var start = [Int32](repeating: 0, count: 65_537)
            for slot in 0..<input.count { start[Int(keys[slot * 16 + piece]) + 1] += 1 }
            for value in 0..<65_536 { start[value + 1] += start[value] }
            var cursor = start
            var hashes = [PDQHash](repeating: .zero, count: input.count)
            var slots = [Int32](repeating: 0, count: input.count)
            for (slot, hash) in input.enumerated() {
                let value = Int(keys[slot * 16 + piece])
                let at = Int(cursor[value])
                hashes[at] = hash
                slots[at] = Int32(slot)
                cursor[value] += 1
            }
            self.start = start
            self.hashes = hashes
            self.slots = slots
        }

        /// Both lists laid out by one piece, each on a core of its own (the sorting
        /// was a tenth of `dupes`' time, on one core while the other waited).
        static func pair(_ a: ([PDQHash], [UInt16]), _ b: ([PDQHash], [UInt16]), piece: Int) -> (Sorted, Sorted) {
            let sorted = ParallelSlices.map(2) { side in
                side == 0 ? Sorted(a.0, keys: a.1, piece: piece) : Sorted(b.0, keys: b.1, piece: piece)
            }
            return (sorted[0], sorted[1])
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
