import BlobStore
import Foundation
import Imaging

/// Makes again the derived files of one image whose files went missing (`verify
/// --repair`), with the same sizes and layouts the index says it had, through the
/// same ``Deriver`` a run uses so a repaired thumbnail is byte-for-byte what a fresh
/// run would write.
public enum DerivedRepair {
    /// Re-derives what of `records` is missing on disk, records the new rows, and
    /// returns them; throws a readable reason when the image cannot be derived.
    public static func rederive(
        _ hash: BlobHash, records: [DerivedRecord], store: BlobStore, index: CacheIndex, threads: Int = 1
    ) throws(PipelineError) -> [DerivedRecord] {
        var options = DeriveOptions()
        options.thumbnailSizes = records.filter { $0.kind == "thumb" }.compactMap { Int($0.sizeParameter) }
        let tileRecords = records.filter { $0.kind == "dzi" || $0.kind == "iiif3" }
        options.tiles = tileRecords.isEmpty ? .none : .eager
        options.layouts = Set(tileRecords.map { $0.kind == "dzi" ? PyramidLayout.deepZoom : .iiif3 })
        if let size = tileRecords.compactMap({ Int($0.sizeParameter) }).first { options.tileSize = size }
        if let info = tileRecords.first(where: { $0.kind == "iiif3" }),
           let id = Self.iiifID(store.root.appendingPathComponent(info.path)),
           id.hasSuffix("/\(hash.hex)") {
            // Keep the base URL the pyramid was made for.
            options.iiifBaseURL = String(id.dropLast(hash.hex.count + 1))
        }
        let deriver = Deriver(store: store, files: DerivedFiles(cacheRoot: store.root), options: options,
                              threadsPerImage: max(1, threads))
        let outcome = deriver.derive(DeriveJob(hash: hash, wantsTiles: !tileRecords.isEmpty, existing: records))
        if let error = outcome.error { throw .cache("cannot re-derive \(hash.hex): \(error)") }
        do { try index.recordDerived(outcome.newRecords) } catch { throw .cache(error.description) }
        return outcome.newRecords
    }

    /// The `id` of an existing IIIF `info.json` (the iiif folder may survive a lost thumbnail).
    static func iiifID(_ url: URL) -> String? {
        guard let data = try? Data(contentsOf: url),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return json["id"] as? String
    }
}
