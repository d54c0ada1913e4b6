import Foundation

/// Names of manifests put in place by one task, taken in the same order by a thread
/// that reads them into the catalog meanwhile (``BucketSync``): the taker blocks
/// until the next name or the end. Unbounded: names are short, and the copier should
/// never wait for the catalog.
final class ManifestArrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var names: [String] = []
    private var taken = 0
    private var finished = false

    func put(_ name: String) {
        condition.lock()
        names.append(name)
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

    /// The next name, waiting for it; nil once ``finish()`` was called and all are taken.
    func take() -> String? {
        condition.lock()
        defer { condition.unlock() }
        while taken == names.count, !finished { condition.wait() }
        guard taken < names.count else { return nil }
        taken += 1
        return names[taken - 1]
    }
}
