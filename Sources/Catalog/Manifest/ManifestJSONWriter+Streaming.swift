import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

// MARK: - Streaming

/// The pieces ``ManifestStreamWriter`` puts together: the writer's state is kept
/// across them, so the bytes are the ones ``ManifestJSONWriter/encode(_:)`` writes
/// for the same manifest.
extension ManifestJSONWriter {
    /// `{` and the members known at the start, then the opened `tweets` array.
    mutating func beginStream(version: Int, generatedAt: Date, tool: String, cacheRoot: String) {
        beginObject()
        writeHead(version: version, generatedAt: generatedAt, tool: tool, cacheRoot: cacheRoot)
        key("tweets"); beginArray()
    }

    /// A writer positioned inside an array one level below the top object, for
    /// elements written apart (to a spill file) and copied into the manifest later.
    static func element() -> ManifestJSONWriter {
        var w = ManifestJSONWriter()
        w.counts = [1, 0]
        return w
    }

    /// Elements written so far in the innermost array.
    var elementCount: Int { counts.last ?? 0 }

    mutating func post(_ t: ManifestTweet) { nextElement(); write(t) }
    mutating func failure(_ f: Manifest.Failure) { nextElement(); write(f) }

    /// Ends the open array, which holds `count` elements however they were written.
    mutating func endArray(count: Int) {
        continueArray(count: count)
        endArray()
    }

    /// Takes up the open array after `count` elements written elsewhere.
    mutating func continueArray(count: Int) { counts[counts.count - 1] = count }

    /// Opens a member's array, for elements copied in from a spill file.
    mutating func beginArray(named name: StaticString) { key(name); beginArray() }

    /// The members known at the end, and the closing `}`.
    mutating func endStream(sources: [Manifest.Source], summary: RunSummary) {
        key("sources"); array(sources) { $0.write($1) }
        key("summary"); write(summary)
        endObject()
    }

    /// Hands over the bytes written so far and starts afresh (the state is kept).
    mutating func drain() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }
}
