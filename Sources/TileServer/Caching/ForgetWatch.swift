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

    /// Looks once: true (and flushed) when the log changed since `seen`.
    func check(_ seen: inout Int) -> Bool {
        let size = log.size
        guard size != seen else { return false }
        seen = size
        flush()
        return true
    }

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            var seen = log.size
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                _ = check(&seen)
            }
        }
    }
}
