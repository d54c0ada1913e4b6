import BlobStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One batch of a stream as it arrives: `results/streams/<key>-<UTC>-<n>.jsonl`, a
/// post per line as the network sent it (the pipeline reads JSON Lines), and the
/// deletions in a `.deletes` file beside it.
///
/// Each event is written as it comes (a kill -9 loses none the kernel has). While
/// open it is named `….jsonl.open`, which `forget` leaves alone (a rewrite would
/// replace the file under the open descriptor); sealing fsyncs it and gives it its name.
final class StreamSpool {
    let relativePath: String
    let url: URL
    private(set) var posts = 0
    private(set) var deletions = 0
    let opened: Date
    private var fd: Int32
    private var deletesFD: Int32 = -1

    static let folder = "results/streams"

    /// `sequence` numbers the batches of one watch; a name another batch has (a watch
    /// started within the same second as an earlier one) moves on to the next number.
    init(cacheRoot: URL, key: String, opened: Date, sequence: inout Int) throws {
        let folder = cacheRoot.appendingPathComponent(Self.folder, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let stamp = Self.stamp(opened)
        self.opened = opened
        while true {
            let name = "\(key)-\(stamp)-\(sequence).jsonl"
            let candidate = folder.appendingPathComponent(name)
            sequence += 1
            if FileManager.default.fileExists(atPath: candidate.path) { continue }
            let fd = open(Self.openURL(of: candidate).path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644)
            if fd < 0, errno == EEXIST { continue }
            guard fd >= 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: candidate.path])
            }
            self.fd = fd
            relativePath = "\(Self.folder)/\(name)"
            url = candidate
            return
        }
    }

    /// Where a batch is written until sealed.
    static func openURL(of url: URL) -> URL { url.appendingPathExtension("open") }

    /// A batch a killed watch left open, given its name (its events are all there).
    static func adopt(_ url: URL) {
        let open = openURL(of: url)
        if FileManager.default.fileExists(atPath: open.path), !FileManager.default.fileExists(atPath: url.path) {
            rename(open.path, url.path)
        }
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
        guard rename(Self.openURL(of: url).path, url.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        try FileSystem.syncDirectory(url.deletingLastPathComponent().path)
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
