import Foundation
import Synchronization

/// Folders and files a test writes under the system's temporary folder, removed when
/// the test process exits.
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

    private static func removeAll() {
        for path in paths.withLock({ $0 }) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
