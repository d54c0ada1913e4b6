import BlobStore
import Catalog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The order `forget` rewrites manifests in, when some name bytes of others
/// (``Catalog/SeekableZstd/Reference``).
///
/// A manifest about to be blanked changes some of its frames; a later manifest that
/// names those frames would no longer read. So every manifest naming bytes that are
/// about to change is written again first, with the holder's frames there copied in
/// (its other references stay), and a holder is rewritten only after everything
/// naming it: a forget stopped at any point leaves every manifest readable.
struct ManifestRewritePlan {
    struct Step: Equatable {
        var name: String
        /// Whether the posts are in it (blanked), or it only names bytes that change.
        var blanking: Bool
        /// Holder to the ranges of its JSON about to change that this one names.
        var materializing: [String: [Range<Int>]]
    }

    private(set) var steps: [Step] = []

    /// `changing`: each manifest to be blanked, with the ranges of its JSON its blanks
    /// change (and its failures', when URLs go). `names`: every manifest.
    init(folder: URL, names: [String], changing: [String: [Range<Int>]]) {
        // Who names what: holder to (referrer, the holder's bytes it names).
        var referrers: [String: [(name: String, range: Range<Int>)]] = [:]
        for name in names where name.hasSuffix(CacheKey.manifestSuffix) {
            guard let (fd, _, _) = try? FileSystem.openRegularFile(folder.appendingPathComponent(name).path, operation: "read") else {
                continue
            }
            defer { close(fd) }
            guard let file = try? SeekableZstdFile(descriptor: fd) else { continue }
            for index in 0..<file.table.frameCount {
                guard let reference = try? file.reference(index) else { continue }
                referrers[reference.holder, default: []]
                    .append((name, reference.offset..<(reference.offset + reference.length)))
            }
        }
        var materializing: [String: [String: [Range<Int>]]] = [:]
        for (holder, ranges) in changing {
            for (referrer, named) in referrers[holder] ?? [] where ranges.contains(where: { $0.overlaps(named) }) {
                materializing[referrer, default: [:]][holder] = ranges
            }
        }
        // Referrers first: a depth-first walk from each manifest that changes.
        var done: Set<String> = []
        func visit(_ name: String) {
            guard done.insert(name).inserted else { return }
            for (referrer, holders) in materializing where holders[name] != nil { visit(referrer) }
            steps.append(Step(name: name, blanking: changing[name] != nil, materializing: materializing[name] ?? [:]))
        }
        for name in changing.keys.sorted(by: >) { visit(name) }
    }
}
