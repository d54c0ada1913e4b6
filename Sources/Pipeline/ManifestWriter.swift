import Foundation

/// Writes manifests under `<cache>/manifests/`, named by UTC time so they sort in
/// the order runs happened, each written to a temp name and renamed into place.
struct ManifestWriter {
    let root: URL

    var directory: URL { root.appendingPathComponent("manifests", isDirectory: true) }

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    func write(_ manifest: inout Manifest, extraPath: URL?) throws(PipelineError) -> URL {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let stamp = Self.stamp(manifest.generatedAt)
            var url = directory.appendingPathComponent("\(stamp).json")
            var n = 1
            while FileManager.default.fileExists(atPath: url.path) {
                n += 1
                url = directory.appendingPathComponent("\(stamp)-\(n).json")
            }
            manifest.summary.manifestPath = url.path
            let data = try Self.encoder().encode(manifest)
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

    static func stamp(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return f.string(from: date)
    }
}

extension Manifest {
    /// Reads a manifest written by any run of this version.
    public static func read(from url: URL) throws -> Manifest {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return try d.decode(Manifest.self, from: Data(contentsOf: url))
    }

    public func encoded() throws -> Data { try ManifestWriter.encoder().encode(self) }
}
