import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

extension Manifest {
    /// Foundation's encoder set up as the format is defined: pretty-printed, keys
    /// sorted, slashes unescaped, dates ISO 8601. ``ManifestJSONWriter`` writes the
    /// same bytes faster; this one is the reference its tests compare against.
    public static func referenceEncoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    /// The largest manifest file read whole into memory (a run's single document).
    public static let largestReadWhole = 1 << 30

    /// Reads a manifest written by any run of this version, compressed (`.json.zst`)
    /// or not.
    /// A compressed manifest's references are read in its folder.
    public static func read(from url: URL) throws -> Manifest {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return try decode(Data(contentsOf: url)) }
        defer { close(fd) }
        guard SeekableZstd.isCompressed(fd) else { return try decode(Data(contentsOf: url)) }
        let file = try SeekableZstdFile(descriptor: fd, directory: url.deletingLastPathComponent().path)
        guard file.table.decompressedSize <= largestReadWhole else {
            throw SeekableZstd.Problem("\(url.lastPathComponent) would uncompress to \(file.table.decompressedSize) bytes, over \(largestReadWhole) read into memory")
        }
        return try decode(file.read(0..<file.table.decompressedSize))
    }

    /// Decodes a manifest's bytes (read by the caller, e.g. below a confined root).
    public static func decode(_ data: Data) throws -> Manifest {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return try d.decode(Manifest.self, from: data)
    }

    /// The manifest's JSON, as every run writes it (``ManifestJSONWriter``).
    public func encoded() -> Data { ManifestJSONWriter.encode(self) }
}
