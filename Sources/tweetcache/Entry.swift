import CTweetCache
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
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
        // A reader of our output that went away (`| head`) is not a reason to die:
        // writes to it fail with EPIPE and are dropped (``StandardStreams``).
        signal(SIGPIPE, SIG_IGN)
        let command = CommandLine.arguments.dropFirst().first
        let serving = command == "serve" || (command == "demo" && CommandLine.arguments.contains("--keep-serving"))
        // A batch (a fetch of a million posts) allocates on many threads: with glibc's
        // eight arenas per core, each keeps its own partly empty heaps, and the peak
        // grows with the run (a million-post fetch: 209 MB, with two arenas 183 MB).
        // A server keeps the default: its event loops allocate per request.
        // (A fixed mmap threshold, 1 MB, took 3 MB off a million-post fetch's peak and
        // made a fetch of full-size photos 18% slower, its pixels mapped anew each
        // time: glibc's growing threshold is kept.)
        if !serving { _ = tc_malloc_limit_arenas(2) }
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
