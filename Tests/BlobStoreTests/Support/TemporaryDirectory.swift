import Foundation

/// A fresh directory per test, removed when the test is done with it, so
/// tests running in parallel never share a cache by accident.
final class TemporaryDirectory {
    let url: URL

    init(_ label: String = #function) throws {
        let name = "BlobStoreTests-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func appending(_ component: String) -> URL {
        url.appendingPathComponent(component)
    }
}
