import BlobStore
import Catalog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes manifests under `<cache>/manifests/`, named by UTC time so they sort in
/// the order runs happened, each written to a temp name and renamed into place.
struct ManifestWriter {
    let root: URL

    var directory: URL { CacheLayout(root: root).manifestsURL }

    func write(_ manifest: inout Manifest, extraPath: URL?, tag: String? = nil) throws(PipelineError) -> URL {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let stamp = Self.stamp(manifest.generatedAt) + (tag.map { "-" + $0 } ?? "")
            var url = directory.appendingPathComponent("\(stamp).json")
            var n = 1
            while FileManager.default.fileExists(atPath: url.path) {
                n += 1
                url = directory.appendingPathComponent("\(stamp)-\(n).json")
            }
            manifest.summary.manifestPath = url.path
            let data = manifest.encoded()
            // .atomic writes a temp file and renames it: readers never see half a manifest.
            try data.write(to: url, options: .atomic)
            if let extraPath { try data.write(to: extraPath, options: .atomic) }
            return url
        } catch let e as PipelineError {
            throw e
        } catch {
            throw .manifest((error as NSError).localizedDescription)
        }
    }

    /// `20261122T063000Z`: sortable, no colons (awkward in file names on some systems).
    /// Computed with `gmtime_r` rather than DateFormatter, which would load ICU (tens of
    /// milliseconds) into every run just to name a file.
    static func stamp(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tm.tm_year + 1900)\(two(tm.tm_mon + 1))\(two(tm.tm_mday))T\(two(tm.tm_hour))\(two(tm.tm_min))\(two(tm.tm_sec))Z"
    }
}
