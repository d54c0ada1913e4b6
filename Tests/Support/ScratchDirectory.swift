import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Folders and files a test writes under the system's temporary folder, handed to
/// `rm -rf` when the test process exits.
///
/// Many tests hand a path to code that keeps using it after the test body returns (a
/// server's cache, a fixture shared by a suite), so removing it per test is not always
/// possible; left alone they piled up, about 130 MB of caches in /tmp per full run.
/// Removal at exit covers every test that ends normally; a crashed run leaves its
/// folders for the system's cleaner.
public enum ScratchDirectory {
    private static let paths = Mutex<[String]>([])
    private static let cleanup: Void = {
        atexit { ScratchDirectory.removeAll() }
    }()

    /// A new empty folder named `prefix-UUID`.
    public static func make(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return removeAtExit(url)
    }

    /// A path for the caller to create (a file, a copy of a folder), removed at exit too.
    public static func path(_ prefix: String, suffix: String = "") -> URL {
        removeAtExit(FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)"))
    }

    /// Removes `url` (whatever is there by then) when the process exits.
    @discardableResult
    public static func removeAtExit(_ url: URL) -> URL {
        _ = cleanup
        paths.withLock { $0.append(url.path) }
        return url
    }

    /// Hands the paths to `rm -rf`, which the process does not wait for: a whole run
    /// leaves about 130 MB in many small files, and removing them here held the run's
    /// exit for about 4 s. The remover gets no descriptor of this process's (its output
    /// goes nowhere, so a reader of ours is not kept waiting) and a process group of its
    /// own (a Ctrl-C of the test run does not stop it half way).
    private static func removeAll() {
        let all = paths.withLock { $0 }
        guard !all.isEmpty else { return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // Every other descriptor closed (glibc ignores one closed meanwhile).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        // In batches: a command line has a length limit.
        for start in stride(from: 0, to: all.count, by: 500) {
            let batch = all[start..<min(start + 500, all.count)]
            var argv: [UnsafeMutablePointer<CChar>?] = (["rm", "-rf", "--"] + batch).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            if posix_spawn(&pid, "/bin/rm", &actions, &attributes, &argv, environ) != 0 {
                for path in batch { try? FileManager.default.removeItem(atPath: path) }
            }
        }
    }
}
