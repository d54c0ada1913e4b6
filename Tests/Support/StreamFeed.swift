import Foundation
import Synchronization

/// What a streaming test response sends, pushed by the test: chunks in order, then
/// the end. A connection that takes a feed blocks on it until something is pushed, so
/// a test makes a stall by pushing nothing. One feed per connection.
public final class StreamFeed: Sendable {
    private let condition = NSCondition()
    private let queue = Mutex<(chunks: [[UInt8]], closed: Bool, taken: Int)>(([], false, 0))

    public init() {}

    public func push(_ text: String) { push(Array(text.utf8)) }

    public func push(_ bytes: [UInt8]) {
        condition.lock()
        queue.withLock { $0.chunks.append(bytes) }
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the response after what was pushed.
    public func close() {
        condition.lock()
        queue.withLock { $0.closed = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Chunks the server has sent so far.
    public var sent: Int { queue.withLock { $0.taken } }

    /// The next chunk, waiting for one; nil once closed and drained, or stopped.
    func next(stopped: () -> Bool) -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let item = queue.withLock { q -> [UInt8]?? in
                if !q.chunks.isEmpty { q.taken += 1; return .some(q.chunks.removeFirst()) }
                return q.closed ? .some(nil) : nil
            }
            if let item { return item }
            if stopped() { return nil }
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
        }
    }
}
