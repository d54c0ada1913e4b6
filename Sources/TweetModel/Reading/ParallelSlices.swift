import Foundation
import Synchronization

/// Work cut into one run of indices per core, done at once, its results in order: how
/// the results parsers and the catalog's decoder use every core.
package enum ParallelSlices {
    /// `range` cut into at most `parts` runs of nearly equal length, in order.
    package static func split(_ range: Range<Int>, parts: Int) -> [Range<Int>] {
        let parts = max(1, min(parts, range.count))
        let per = max(1, (range.count + parts - 1) / parts)
        return stride(from: range.lowerBound, to: range.upperBound, by: per).map {
            $0..<min(range.upperBound, $0 + per)
        }
    }

    /// `body` for each of `0..<count` at once; the results in index order.
    package static func map<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let results = Mutex<[Int: T]>([:])
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let value = body(i)
            results.withLock { $0[i] = value }
        }
        return results.withLock { all in (0..<count).map { all[$0]! } }
    }
}
