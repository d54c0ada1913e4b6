import Foundation

extension PostCatalog {
    /// A post's place in its manifest.
    struct Entry: Sendable {
        var section: ManifestFile.Section
        var range: Range<Int>
    }

    /// A batch of a manifest's posts being decoded and made into rows on other
    /// threads while the batch before is written: decoding a post costs about what
    /// writing it does, so the two take turns on no core. ``wait()`` hands them over.
    final class DecodingBatch: @unchecked Sendable {
        let entries: [Entry]
        private let done = DispatchGroup()
        /// Written by the decoding thread before `done` is left, read only after it is
        /// waited for: the group orders the two.
        private var rows: [Result<PostRow, ManifestFile.Problem>] = []

        init(_ entries: [Entry], in manifest: ManifestFile) {
            self.entries = entries
            done.enter()
            DispatchQueue.global().async { [self] in
                rows = manifest.read(at: entries.map(\.range)) { json in
                    PostRow(try json.withUnsafeBytes { try PostFacts.read($0) })
                }
                done.leave()
            }
        }

        @discardableResult
        func wait() -> [Result<PostRow, ManifestFile.Problem>] {
            done.wait()
            return rows
        }
    }
}
