import BlobStore
import Foundation
import Imaging

/// Makes again the derived files of one image whose files went missing or were
/// found damaged (`verify --repair`), with the sizes and tile size the index says
/// it had, through the same ``Deriver`` a run uses, so a repaired thumbnail or pack
/// is byte-for-byte what a fresh run would write. Rows of the old layout (per-tile
/// trees) are converted: the image gets a pack and its old folder goes.
public enum DerivedRepair {
    /// Re-derives what of `records` is missing on disk, records the new rows, and
    /// returns them; throws a readable reason when the image cannot be derived.
    public static func rederive(
        _ hash: BlobHash, records: [DerivedRecord], store: BlobStore, index: CacheIndex, threads: Int = 1
    ) throws(PipelineError) -> [DerivedRecord] {
        var options = DeriveOptions()
        options.thumbnailSizes = records.filter { $0.kind == DerivedKind.thumbnail }.compactMap { Int($0.sizeParameter) }
        let tileRecords = records.filter { $0.kind == DerivedKind.pack || DerivedFiles.Legacy.treeKinds.contains($0.kind) }
        options.tiles = tileRecords.isEmpty ? .none : .eager
        if let size = tileRecords.compactMap({ Int($0.sizeParameter) }).first { options.tileSize = size }
        let deriver = Deriver(store: store, files: DerivedFiles(cacheRoot: store.root), options: options,
                              threadsPerImage: max(1, threads))
        let outcome = deriver.derive(DeriveJob(hash: hash, wantsTiles: !tileRecords.isEmpty, existing: records))
        if let error = outcome.error { throw .cache("cannot re-derive \(hash.hex): \(error)") }
        do {
            try index.recordDerived(outcome.newRecords)
            try index.removeDerived(outcome.obsolete)
        } catch { throw .cache(error.description) }
        if !outcome.obsolete.isEmpty {
            try? FileManager.default.removeItem(at: store.layout.url(CacheLayout.legacyFolder(hash)))
        }
        return outcome.newRecords
    }
}
