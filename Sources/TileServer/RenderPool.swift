import Dispatch

/// Where decoding, resampling and encoding run: off Swift's cooperative pool and
/// off the event loops, at most `width` jobs at once.
///
/// CPU-bound work on the cooperative pool would starve the tasks that answer
/// cached requests (the common case); a bounded pool of its own keeps cached
/// tiles fast while cold ones are being made.
final class RenderPool: Sendable {
    private let queue = DispatchQueue(label: "tweetcache.render", qos: .userInitiated, attributes: .concurrent)
    private let slots: DispatchSemaphore

    init(width: Int) {
        slots = DispatchSemaphore(value: max(1, width))
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [slots] in
                slots.wait()
                defer { slots.signal() }
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
