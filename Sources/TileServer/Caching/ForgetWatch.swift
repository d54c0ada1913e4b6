import Catalog
import Foundation
import ServiceLifecycle

/// Keeps a running server from serving what `forget` removed: the tombstone log
/// only grows, so a change of its size means posts were forgotten (by another
/// process, or another machine through `sync`); every response, file, pack index and
/// decoded image the server keeps in memory is then dropped, and later requests go to
/// the disk and the catalog, where the forgotten posts and media no longer are.
///
/// A look every ``TileServerConfiguration/forgetCheckInterval`` (a `stat`), not a
/// check per request: the hot path for tiles stays as it is.
struct ForgetWatch: Service {
    let log: TombstoneLog
    let interval: Duration
    let flush: @Sendable () -> Void

    /// The log's size and whether a forget is under way: a forget writes its
    /// tombstones before it removes anything, so what is requested meanwhile may be
    /// kept in memory again; its end (the mark going) flushes once more.
    func state() -> Int { log.size * 2 + (log.isPending ? 1 : 0) }

    /// Looks once: true (and flushed) when the log or the mark changed since `seen`.
    func check(_ seen: inout Int) -> Bool {
        let now = state()
        guard now != seen else { return false }
        seen = now
        flush()
        return true
    }

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            var seen = state()
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                _ = check(&seen)
            }
        }
    }
}
