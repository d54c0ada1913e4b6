import BlobStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Names for a run's manifest under `<cache>/manifests/`: UTC time, so they sort in
/// the order runs happened, then the tag, then `-2`, `-3`… for names already taken.
struct ManifestNames {
    let directory: URL
    let stem: String
    private var n = 0

    init(directory: URL, generatedAt: Date, tag: String?) {
        self.directory = directory
        stem = Self.stamp(generatedAt) + (tag.map { "-" + $0 } ?? "")
    }

    /// The next name not taken now (taking it is ``ManifestStreamWriter/commit(to:)``'s).
    mutating func next() -> URL {
        while true {
            n += 1
            let name = n == 1 ? stem : "\(stem)-\(n)"
            // Taken under either name: a run's stamp names one run (an older `.json`
            // may be here, synced from a machine that wrote it).
            guard [CacheKey.manifestSuffix, ".json"].allSatisfy({
                !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name + $0).path)
            }) else { continue }
            return directory.appendingPathComponent(name + CacheKey.manifestSuffix)
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
