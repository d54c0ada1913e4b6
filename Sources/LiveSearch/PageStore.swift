import Foundation

/// Saves a search's pages under `<cache>/results/` with names that sort by time and say
/// what they hold: `20250101T120000Z-v2-ucd-p1.json`.
struct PageStore: Sendable {
    let directory: URL
    let stem: String

    init(directory: URL, api: SearchAPI, query: SearchQuery, started: Date) {
        self.directory = directory
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = "\(f.string(from: started))-\(api.rawValue)-\(query.slug)"
        // Two searches in the same second must not overwrite each other's pages.
        var stem = base
        var n = 1
        while FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(stem)-p1.json").path) {
            n += 1
            stem = "\(base)-\(n)"
        }
        self.stem = stem
    }

    /// Writes the page atomically (temp file, fsync, rename): a crash leaves either no
    /// page or the whole page, never half of one that `fetch` would report as broken.
    func save(_ body: [UInt8], number: Int) throws(LiveSearchError) -> URL {
        let url = directory.appendingPathComponent("\(stem)-p\(number).json")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(body).write(to: url, options: .atomic)
        } catch {
            throw .cannotSave(path: url.path, reason: (error as NSError).localizedDescription)
        }
        return url
    }
}
