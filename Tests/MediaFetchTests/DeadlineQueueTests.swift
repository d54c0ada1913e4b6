import Foundation
import Testing
@testable import MediaFetch
#if canImport(Glibc)
import Glibc
#endif

/// A request with a deadline counts its time queued for a connection slot: behind
/// others to a host that never answers (a store frozen with SIGSTOP), it ends by
/// its own deadline, not one queue position later each.
@Suite struct DeadlineQueueTests {
    /// A loopback port whose connections the kernel completes and nobody ever
    /// reads or answers: the listening socket is never accepted from.
    final class SilentListener: Sendable {
        let fd: Int32
        let port: Int
        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 64) == 0 else {
                close(fd)
                throw POSIXError(.EADDRINUSE)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        deinit { close(fd) }
    }

    @Test func queuedRequestsEndByTheirOwnDeadline() async throws {
        let silent = try SilentListener()
        let port = silent.port
        var configuration = FetchConfiguration()
        configuration.maxConcurrentTransfers = 1
        configuration.maxTransfersPerHost = 1
        configuration.totalTimeout = .seconds(30)
        let fetcher = try HTTPFetcher(configuration: configuration)
        defer { fetcher.shutdown() }
        let timeout = Duration.seconds(1)
        // Six requests through one slot, submitted together. Each is timed from its own
        // start (a loaded machine may start them late, which is not the loop's doing):
        // without the deadline counting the queue, the ones behind would end a whole
        // timeout later per place in the queue (the sixth after 6 s).
        let ends = await withTaskGroup(of: (Duration, FetchFailure?).self) { group in
            for n in 0..<6 {
                group.addTask {
                    let request = APIRequest(url: "http://127.0.0.1:\(port)/object/\(n)", timeout: timeout)
                    let started = ContinuousClock.now
                    let result = await fetcher.perform(request)
                    if case let .failure(failure) = result { return (ContinuousClock.now - started, failure) }
                    return (ContinuousClock.now - started, nil)
                }
            }
            var all: [(Duration, FetchFailure?)] = []
            for await end in group { all.append(end) }
            return all
        }
        #expect(ends.count == 6)
        for (_, failure) in ends {
            guard case .timedOut = failure else { Issue.record("expected a timeout, got \(String(describing: failure))"); continue }
        }
        // The proof is structural, not a stopwatch's: a request whose deadline passed
        // while it waited for the slot ends there, with that reason; without the
        // deadline counting the queue each would be admitted late and time out on its
        // own, a full timeout after it started.
        let expiredInQueue = ends.filter { "\($0.1.map(String.init(describing:)) ?? "")".contains("no connection free") }
        #expect(!expiredInQueue.isEmpty, "\(ends.map(\.1))")
        // No stopwatch bound on top: at a fresh clone's first start, with every suite
        // starting at once, a task that had its answer in time was resumed 8 s later.
    }
}
