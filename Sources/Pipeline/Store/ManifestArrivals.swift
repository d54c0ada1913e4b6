import Catalog
import Foundation

/// Manifests put in place by one task, taken in the same order by a thread
/// that reads them into the catalog meanwhile (``BucketSync``): the taker blocks
/// until the next arrival or the end. Unbounded: an arrival is a name and a mapped file
/// whose pages were given back after its scan, and the copier should never wait for
/// the catalog.
final class ManifestArrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var names: [ManifestArrival] = []
    private var taken = 0
    private var finished = false

    func put(_ arrival: ManifestArrival) {
        condition.lock()
        names.append(arrival)
        condition.signal()
        condition.unlock()
    }

    /// No more names will come.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// The next arrival, waiting for it; nil once ``finish()`` was called and all are taken.
    func take() -> ManifestArrival? {
        condition.lock()
        defer { condition.unlock() }
        while taken == names.count, !finished { condition.wait() }
        guard taken < names.count else { return nil }
        taken += 1
        // Once taken, the file is the catalog's: not kept mapped here until the end.
        defer { names[taken - 1].manifest = nil }
        return names[taken - 1]
    }
}
