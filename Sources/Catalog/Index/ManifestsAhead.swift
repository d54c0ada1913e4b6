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
    /// the one it has. A file already opened is not opened again, and one that does
    /// not open is handed over unopened: its read opens it and records why it failed.
    struct ManifestsAhead: Sequence {
        let files: [ListedFile]
        let cacheRoot: URL

        func makeIterator() -> Iterator { Iterator(files: files, cacheRoot: cacheRoot) }

        struct Iterator: IteratorProtocol {
            let files: [ListedFile]
            let cacheRoot: URL
            var index = 0
            /// The opening of `files[index]`, started when the file before was handed out.
            var opening: Opening?

            init(files: [ListedFile], cacheRoot: URL) {
                self.files = files
                self.cacheRoot = cacheRoot
                opening = files.first.flatMap(start)
            }

            mutating func next() -> ListedFile? {
                guard index < files.count else { return nil }
                var file = files[index]
                let current = opening
                index += 1
                // The next one opens while this one is written.
                opening = index < files.count ? start(files[index]) : nil
                if let current { file.opened = current.wait() }
                return file
            }

            private func start(_ file: ListedFile) -> Opening? {
                file.opened == nil ? Opening(url: cacheRoot.appendingPathComponent(file.path)) : nil
            }
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

            /// The file opened, or nil when it did not open.
            func wait() -> ManifestFile? {
                done.wait()
                return manifest
            }
        }
    }
}
