import CTweetCache
import Dispatch
import NIOCore
import NIOPosix

/// The process entry point: synchronous, so that before any Swift concurrency
/// runs, `serve` can make NIO's event loops the global executor.
///
/// A server's handlers then run on the event loop that owns the connection
/// instead of hopping to the default pool and back for every request, which
/// measured as most of the per-request overhead for cached tiles. Other
/// commands keep the default executor (their CPU work belongs on it).
@main
enum Entry {
    static func main() {
        let command = CommandLine.arguments.dropFirst().first
        let serving = command == "serve" || (command == "demo" && CommandLine.arguments.contains("--keep-serving"))
        // A batch (a fetch of a million posts) allocates on many threads: with glibc's
        // eight arenas per core, each keeps its own partly empty heaps, and the peak
        // grows with the run (a million-post fetch: 209 MB, with two arenas 183 MB).
        // And blocks of 1 MB or more are mapped on their own, at a threshold that does
        // not grow to the biggest block freed (a million-post fetch peaked at 128 MB
        // with glibc's growing threshold, 125 MB with this one).
        // A server keeps the default: its event loops allocate per request.
        if !serving {
            _ = tc_malloc_limit_arenas(2)
            _ = tc_malloc_fix_mmap_threshold(1 << 20)
        }
        if serving {
            _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
        let done = DispatchSemaphore(value: 0)
        // Detached: `main` runs on the main actor, whose thread waits below.
        Task.detached {
            await TweetCacheCommand.runMain()
            done.signal()
        }
        done.wait()
    }
}
