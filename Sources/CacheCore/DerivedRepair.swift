import BlobStore
import Foundation
import Imaging

/// Makes again the derived files of one image whose files went missing or were
/// found damaged (`verify --repair`), with the sizes and tile size the index says
/// it had, through the same ``Deriver`` a run uses, so a repaired thumbnail or pack
/// is byte-for-byte what a fresh run would write.
public enum DerivedRepair {
    /// Re-derives what of `records` is missing on disk, records the new rows, and
    /// returns them; throws a readable reason when the image cannot be derived.
    ///
    /// With `rebuildPyramid` (its pack is damaged), the pyramid is made again
    /// whatever the rows say, with the tile size, overlap and quality of the pack it
    /// replaces, and the old pack is removed first.
    public static func rederive(
        _ hash: BlobHash, records: [DerivedRecord], store: BlobStore, index: CacheIndex, threads: Int = 1,
        rebuildPyramid: Bool = false
    ) throws(CacheError) -> [DerivedRecord] {
        var options = DeriveOptions()
        options.thumbnailSizes = records.filter { $0.kind == DerivedKind.thumbnail }.compactMap(\.size)
        let tileRecords = records.filter { $0.kind == DerivedKind.pack }
        options.tiles = tileRecords.isEmpty && !rebuildPyramid ? .none : .eager
        if let size = tileRecords.compactMap(\.size).first { options.tileSize = size }
        var records = records
        if rebuildPyramid {
            if let pyramid = existingPyramid(hash, store: store) {
                options.tileSize = pyramid.tileSize
                options.overlap = pyramid.overlap
                options.quality = pyramid.quality
            }
            try? FileManager.default.removeItem(atPath: store.layout.path(CacheLayout.pack(hash)))
            records.removeAll { $0.kind == DerivedKind.pack }
        }
        let deriver = Deriver(store: store, files: DerivedFiles(layout: store.layout), options: options,
                              threadsPerImage: max(1, threads))
        let outcome = deriver.derive(DeriveJob(hash: hash, wantsTiles: !tileRecords.isEmpty || rebuildPyramid,
                                               existing: records))
        if let error = outcome.error { throw .unusable("cannot re-derive \(hash.hex): \(error)") }
        do {
            try index.recordDerived(outcome.newRecords)
            try index.removeDerived(outcome.obsolete)
        } catch { throw .unusable(error.description) }
        return outcome.newRecords
    }

    /// Tile size, overlap and quality of the pyramid an image has: its pack's
    /// header (readable even when a tile is damaged).
    public static func existingPyramid(
        _ hash: BlobHash, store: BlobStore
    ) -> (tileSize: Int, overlap: Int, quality: Int, format: PyramidPack.TileFormat)? {
        let relative = CacheLayout.pack(hash)
        if let (head, size) = try? store.readDerived(relative, upTo: PyramidPack.headerLength),
           let end = PyramidPack.indexEnd(header: head),
           let (index, _) = try? store.readDerived(relative, upTo: end),
           let pack = try? PyramidPack(headerAndIndex: index, fileLength: size) {
            return (pack.geometry.tileSize, pack.geometry.overlap, pack.quality, pack.format)
        }
        return nil
    }
}
