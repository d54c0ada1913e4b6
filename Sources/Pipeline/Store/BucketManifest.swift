import Catalog
import Foundation
import ObjectStore

/// A run's manifest as the bucket gets it: without the paths of the machine that
/// wrote it. Other machines read the bucket (and whoever may list it), and the
/// local copy's `cache_root`, the `--manifest` path and the input files' full paths
/// say whose home directory, which projects, which mounts: nothing they need.
///
/// The copy is the manifest with `cache_root` emptied, and `manifest_path`, every
/// post's and problem's `source` and every `sources[].path` cut to the file's name
/// (the Presentation API's per-source ranges still match, since both sides are cut
/// alike), and so are a `file://` store's location and its failures' URLs. Thumbnail
/// and pack paths are cache-relative already and stay.
///
/// The manifest is streamed line by line (the writer puts each key on its own line,
/// and a string value never holds a raw newline), a compressed one a frame at a
/// time, so a manifest of a million posts costs a buffer, not its size in memory.
package enum BucketManifest {
    /// Puts the path-free copy of `file` under `key`.
    package static func store(_ file: URL, as key: String, in storage: any CacheStorage) async throws(StoreError) -> PutOutcome {
        let copy = file.deletingLastPathComponent().appendingPathComponent(".bucket-\(UUID().uuidString).tmp")
        defer { unlink(copy.path) }
        let compressed: Bool
        do { compressed = try writeCopy(of: file, to: copy) } catch {
            throw .invalidLocation("\(file.lastPathComponent): could not make the bucket's copy: \(error)")
        }
        return try await storage.store(key, file: copy, sha256: nil, contentType: compressed ? "application/zstd" : "application/json")
    }

    /// Writes the path-free copy of the manifest at `source` to `destination`,
    /// compressed (a new seekable zstd file) when the source is; says whether it is.
    @discardableResult
    package static func writeCopy(of source: URL, to destination: URL) throws -> Bool {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil),
              let output = FileHandle(forWritingAtPath: destination.path) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? output.close() }
        // A compressed manifest is read a frame at a time and written compressed again.
        let frames = SeekableZstd.isCompressed(input.fileDescriptor) ? try SeekableZstdFile(descriptor: input.fileDescriptor, directory: source.deletingLastPathComponent().path) : nil
        var nextFrame = 0
        func read() throws -> [UInt8] {
            guard let frames else { return [UInt8](try input.read(upToCount: 1 << 20) ?? Data()) }
            guard nextFrame < frames.table.frameCount else { return [] }
            nextFrame += 1
            return try frames.frame(nextFrame - 1)
        }
        let zstd = frames == nil ? nil : SeekableZstdWriter { try output.write(contentsOf: Data($0)) }
        func write(_ bytes: [UInt8]) throws {
            if let zstd { try zstd.write(bytes) } else { try output.write(contentsOf: bytes) }
        }
        var rewriter = LineRewriter()
        var pending: [UInt8] = []
        var out: [UInt8] = []
        while true {
            let chunk = try read()
            // An empty frame (another writer's) is not the end; the table's count is.
            if chunk.isEmpty, frames.map({ nextFrame < $0.table.frameCount }) ?? false { continue }
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            var start = 0
            while let newline = pending[start...].firstIndex(of: 10) {
                out.append(contentsOf: rewriter.line(pending[start..<newline]))
                out.append(10)
                start = newline + 1
            }
            pending.removeFirst(start)
            if out.count >= 1 << 20 {
                try write(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        out.append(contentsOf: rewriter.line(pending[...]))
        try write(out)
        try zstd?.finish()
        try output.synchronize()
        return zstd != nil
    }

    /// Rewrites one line at a time, knowing which top-level section it is in.
    struct LineRewriter {
        private var section = ""

        mutating func line(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            let indent = line.prefix { $0 == 32 }.count
            let rest = line.dropFirst(indent)
            guard rest.first == 34, let keyEnd = rest.dropFirst().firstIndex(of: 34) else { return line }
            let key = String(decoding: rest[rest.index(after: rest.startIndex)..<keyEnd], as: UTF8.self)
            if indent == 2 { section = key }
            let cut: Bool
            switch key {
            case "cache_root": cut = indent == 2
            case "manifest_path": cut = section == "summary"
            case "source": cut = true
            case "path": cut = section == "sources" && indent == 6
            // A `file://` store's location, and its failures' URLs, are local paths too.
            case "location": cut = section == "summary"
            case "url": cut = section == "failures"
            default: return line
            }
            guard cut else { return line }
            let fileURL: [UInt8] = Array(#""file:"#.utf8)
            if key == "location" || key == "url", !line.dropFirst(indent).contains(fileURL) { return line }
            // `"key" : "value"` with an optional comma.
            let afterKey = rest[rest.index(after: keyEnd)...]
            guard let open = afterKey.firstIndex(of: 34) else { return line }
            let hasComma = line.last == 44
            let valueEnd = hasComma ? line.index(before: line.endIndex) : line.endIndex
            guard valueEnd > open + 1, line[line.index(before: valueEnd)] == 34 else { return line }
            let value = line[(open + 1)..<line.index(before: valueEnd)]
            let kept: ArraySlice<UInt8> = key == "cache_root" ? [] : value.split(separator: 47, omittingEmptySubsequences: false).last ?? []
            var result = Array(line[..<(open + 1)])
            result.append(contentsOf: kept)
            result.append(34)
            if hasComma { result.append(44) }
            return result[...]
        }
    }
}
