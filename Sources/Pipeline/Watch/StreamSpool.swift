import BlobStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One batch of a stream as it arrives: `results/streams/<key>-<UTC>-<n>.jsonl`, a
/// post per line as the network sent it (the pipeline reads JSON Lines), and the
/// deletions in a `.deletes` file beside it.
///
/// Each event is written as it comes (a kill -9 loses none the kernel has), and the
/// file is fsynced when sealed, before its run.
final class StreamSpool {
    let relativePath: String
    let url: URL
    private(set) var posts = 0
    private(set) var deletions = 0
    let opened: Date
    private var fd: Int32
    private var deletesFD: Int32 = -1

    static let folder = "results/streams"

    init(cacheRoot: URL, key: String, opened: Date, sequence: Int) throws {
        let folder = cacheRoot.appendingPathComponent(Self.folder, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stamp = Self.stamp(opened)
        let name = "\(key)-\(stamp)-\(sequence).jsonl"
        relativePath = "\(Self.folder)/\(name)"
        url = folder.appendingPathComponent(name)
        self.opened = opened
        fd = try FileSystem.openFile(url.path, flags: O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, operation: "create")
    }

    deinit {
        if fd >= 0 { close(fd) }
        if deletesFD >= 0 { close(deletesFD) }
    }

    static func deletesURL(of url: URL) -> URL { url.appendingPathExtension("deletes") }

    func append(post document: [UInt8]) throws {
        var line = document
        // A document is one line in JSON Lines: line breaks inside it are JSON whitespace.
        for i in line.indices where line[i] == 0x0A || line[i] == 0x0D { line[i] = 0x20 }
        line.append(0x0A)
        try FileSystem.writeAll(fd, bytes: line, path: url.path)
        posts += 1
    }

    func append(deletion: StreamDeletion) throws {
        if deletesFD < 0 {
            deletesFD = try FileSystem.openFile(Self.deletesURL(of: url).path, flags: O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                                                operation: "create")
        }
        var line = [UInt8]((try? JSONEncoder().encode(deletion)) ?? Data())
        line.append(0x0A)
        try FileSystem.writeAll(deletesFD, bytes: line, path: url.path)
        deletions += 1
    }

    /// Flushed to disk and closed; nothing more is written to it.
    func seal() throws {
        try FileSystem.sync(fd, path: url.path)
        close(fd)
        fd = -1
        if deletesFD >= 0 {
            try FileSystem.sync(deletesFD, path: url.path)
            close(deletesFD)
            deletesFD = -1
        }
    }

    static func stamp(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}

/// A deletion a stream announced, kept with its batch until applied.
public struct StreamDeletion: Sendable, Codable, Hashable {
    public var network: String
    /// A post gone…
    public var id: String?
    /// …or every post of this user.
    public var user: String?

    public init(network: String, id: String? = nil, user: String? = nil) {
        self.network = network
        self.id = id
        self.user = user
    }
}
