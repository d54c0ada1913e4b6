import Foundation
import Catalog
import TweetModel

/// One input of search results and where it came from (a path, or `-` for stdin).
///
/// Files are not read here: a run reads each a piece at a time (``ResultsStream``),
/// so a collection of any size passes in bounded memory.
public struct ResultsInput: Sendable {
    public var name: String
    enum Content: Sendable {
        case data(Data)
        case file(String)
        case standardInput
    }
    var content: Content
    /// The search that saved these pages: the run's manifest records it with the
    /// input's newest post, for the next search of the same key.
    public var search: Manifest.SearchRecord?
    /// The query its posts are recorded under when its pages name none (X v2 pages
    /// never do): the search as typed, which pins and `tweets --query` name.
    public var query: String?

    /// Results already in memory (a live search's page).
    public init(name: String, data: Data) {
        self.name = name
        content = .data(data)
    }

    /// A file, or standard input for `-`, checked to be readable now so a typo stops
    /// the command before any work; read later, in pieces, by the run.
    public static func read(_ path: String) throws(PipelineError) -> ResultsInput {
        if path == "-" { return ResultsInput(name: "-", content: .standardInput) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            throw .unreadableInput(path, reason)
        }
        try? handle.close()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .unreadableInput(path, "it is a folder")
        }
        return ResultsInput(name: path, content: .file(path))
    }

    /// The input's length when it is known before it is read (not standard input's).
    var knownSize: Int? {
        switch content {
        case let .data(data): data.count
        case let .file(path): (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        case .standardInput: nil
        }
    }

    private init(name: String, content: Content) {
        self.name = name
        self.content = content
    }

    /// The input as a stream of parsed pieces. Standard input is first copied to a
    /// file in `spool` (it can be read once, and a large document is read by
    /// mapping it); the copy is gone once the stream has it open.
    func stream(spool: URL) throws(ResultsStream.Failure) -> ResultsStream {
        switch content {
        case let .data(data):
            return ResultsStream(data: data, source: name)
        case let .file(path):
            return try ResultsStream(path: path, source: name)
        case .standardInput:
            let copy = spool.appendingPathComponent(".stdin-\(UInt64.random(in: .min ... .max))")
            defer { try? FileManager.default.removeItem(at: copy) }
            do {
                try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: copy.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "could not create \(copy.path)"])
                }
                let out = try FileHandle(forWritingTo: copy)
                defer { try? out.close() }
                while let chunk = try FileHandle.standardInput.read(upToCount: 8 << 20), !chunk.isEmpty {
                    try out.write(contentsOf: chunk)
                }
            } catch {
                throw ResultsStream.Failure(description: "cannot read standard input: \((error as NSError).localizedDescription)")
            }
            return try ResultsStream(path: copy.path, source: name)
        }
    }
}
