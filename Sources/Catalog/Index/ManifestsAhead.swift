import Foundation

extension PostCatalog {
    /// The manifests of a read, each opened (``ManifestFile/init(url:)``: mapped, its
    /// structure scanned for every post's place, its header decoded) on a thread of its
    /// own while the writer writes the one before. The scans were the writer's: 2.1 s
    /// of a million posts' `reindex` (2 GB of manifests), on the one thread a big read
    /// waits for, with the other core often idle between the words and the decoding.
    ///
    /// Only a list known up front goes this way: taking the next file early would make
    /// a read of files still arriving (`sync`) wait for the next arrival before writing
    /// the one it has. A file already opened is not opened again. At most one file is
    /// opened ahead, and never beside a file that did not open: that one is handed over
    /// unopened and its read tries again alone (a compressed manifest's JSON is written
    /// out to disk while it is read, and two at once may not fit where one does), so a
    /// file is recorded as a problem only when it does not open on its own.
    struct ManifestsAhead: Sequence {
        let files: [ListedFile]
        let cacheRoot: URL

        func makeIterator() -> Iterator { Iterator(files: files, cacheRoot: cacheRoot) }

        struct Iterator: IteratorProtocol {
            let files: [ListedFile]
            let cacheRoot: URL
            var index = 0
            /// The file opening ahead; a read that ends early waits for it (``Ahead``).
            let ahead = Ahead()

            init(files: [ListedFile], cacheRoot: URL) {
                self.files = files
                self.cacheRoot = cacheRoot
            }

            mutating func next() -> ListedFile? {
                guard index < files.count else { return nil }
                var file = files[index]
                index += 1
                if file.opened == nil {
                    // Opened ahead, or now when the file before did not open.
                    file.opened = (ahead.take() ?? Opening(url: url(of: file))).wait()
                    guard file.opened != nil else { return file }
                }
                // The next one opens while this one is written.
                if index < files.count, files[index].opened == nil { ahead.put(Opening(url: url(of: files[index]))) }
                return file
            }

            private func url(of file: ListedFile) -> URL { cacheRoot.appendingPathComponent(file.path) }
        }

        /// The one file opening ahead. Dropped with its iterator (a read that failed or
        /// ended early), it waits for that opening to end: no thread of the read is left
        /// writing out a manifest's JSON once the read has returned.
        final class Ahead {
            private var opening: Opening?

            func put(_ next: Opening) { opening = next }

            func take() -> Opening? {
                defer { opening = nil }
                return opening
            }

            deinit { _ = opening?.wait() }
        }

        /// One file being opened on a thread of its own.
        final class Opening: @unchecked Sendable {
            private let done = DispatchSemaphore(value: 0)
            /// Written by the opening thread before `done` is signalled, read after.
            private var manifest: ManifestFile?

            init(url: URL) {
                Thread.detachNewThread { [self] in
                    manifest = try? ManifestFile(url: url)
                    done.signal()
                }
            }

            /// The file opened, or nil when it did not open. May be asked again.
            func wait() -> ManifestFile? {
                done.wait()
                done.signal()
                return manifest
            }
        }
    }
}
