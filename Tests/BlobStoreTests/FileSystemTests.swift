@testable import BlobStore
import Foundation
import Testing

/// `FileSystem.writeUnflushed`: the writer for files that are never the only copy.
struct FileSystemTests {
    @Test func anUnflushedWriteReplacesTheWholeFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("thumb.jpg").path
        try FileSystem.writeUnflushed(Array(repeating: 7, count: 10_000), to: path)
        #expect(FileManager.default.contents(atPath: path) == Data(repeating: 7, count: 10_000))
        // A shorter file after a longer one: nothing of the old one is left past its end.
        try FileSystem.writeUnflushed([1, 2, 3], to: path)
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
        try FileSystem.writeUnflushed([], to: path)
        #expect(FileManager.default.contents(atPath: path) == Data())
    }

    @Test func anUnflushedWriteThatCannotBeMadeNamesThePathAndTheReason() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("missing/thumb.jpg").path
        #expect {
            try FileSystem.writeUnflushed([1], to: path)
        } throws: { error in
            guard let error = error as? BlobStoreError, case let .io(_, named, code) = error else { return false }
            return named == path && code == ENOENT
        }
        // A folder under the name is refused, not emptied.
        try FileManager.default.createDirectory(atPath: directory.appending("folder").path, withIntermediateDirectories: false)
        #expect(throws: BlobStoreError.self) { try FileSystem.writeUnflushed([1], to: directory.appending("folder").path) }
    }
}
