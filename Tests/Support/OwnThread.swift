import Foundation

/// Runs blocking work (socket reads, waiting for a child process) on a thread of
/// its own and awaits the result.
///
/// Not on GCD's global queues: on Linux they share a small pool, which grows
/// only slowly when its threads block, with the tasks of a server under test;
/// a test blocked there waiting for that server could starve it for seconds.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
