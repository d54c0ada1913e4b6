import Synchronization

/// A lock-free running total of body bytes received, read by progress displays while
/// the transfer thread adds to it.
public final class ByteCounter: Sendable {
    private let total = Atomic<Int>(0)

    public init() {}

    public func add(_ n: Int) { total.add(n, ordering: .relaxed) }

    public var value: Int { total.load(ordering: .relaxed) }
}
