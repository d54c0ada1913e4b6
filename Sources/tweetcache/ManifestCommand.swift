import ArgumentParser
import BlobStore
import Catalog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `tweetcache manifest`: a run's manifest as plain JSON, for `jq` and other tools.
///
/// Why a command rather than `zstd -dc`: a run repeated over the same posts names the
/// frames an earlier run's manifest holds instead of writing them again
/// (``Catalog/SeekableZstd/Reference``), and only this project's reader follows
/// those names, checking every frame on the way.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Print a run's manifest as JSON (for jq), or as a compressed file that reads on its own.",
        discussion: """
            RUN is a run's stamp (20261206T094351Z, or its start), its file name under \
            manifests/, or a manifest file's path; the newest run when left out. A run \
            that repeated an earlier one names that run's bytes rather than holding them, \
            so `zstd -dc` stops at the first such name; this command reads through them.
            """)

    @Argument(help: ArgumentHelp("The run: its stamp, file name or path (default: the newest).", valueName: "RUN"))
    var name: String?

    @Flag(name: .long, help: "Write the compressed file (seekable zstd, what the run named copied in) instead of JSON.")
    var zst = false

    @OptionGroup var location: CacheOption

    func run() throws {
        let url = try manifestURL()
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FailureExit.message("\(url.path): \(String(cString: strerror(errno)))", code: 2) }
        defer { close(fd) }
        let out = "standard output"
        do {
            guard SeekableZstd.isCompressed(fd) else {
                guard !zst else { throw FailureExit.message("\(url.lastPathComponent) is plain JSON, not compressed", code: 2) }
                try copy(fd, path: url.path, to: out)
                return
            }
            let file = try SeekableZstdFile(descriptor: fd, directory: url.deletingLastPathComponent().path)
            if zst {
                // Whole already (perhaps written before digests): as it is.
                if try !file.writeWhole(to: { try FileSystem.writeAll(STDOUT_FILENO, $0, path: out) }) {
                    try copy(fd, path: url.path, to: out)
                }
            } else {
                try file.expand(to: STDOUT_FILENO, path: out)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw FailureExit.message("\(url.lastPathComponent): \(error)", code: 2)
        }
    }

    /// The file open at `fd` to standard output as it is, a megabyte at a time.
    private func copy(_ fd: Int32, path: String, to out: String) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while case let count = try FileSystem.readSome(fd, into: buffer, path: path), count > 0 {
            try FileSystem.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), path: out)
        }
    }

    /// The file RUN names: a path, else a name or stamp under the cache's manifests.
    private func manifestURL() throws -> URL {
        if let run = name, run.contains("/") || FileManager.default.fileExists(atPath: run) {
            return URL(fileURLWithPath: run)
        }
        let folder = location.url.appendingPathComponent("manifests", isDirectory: true)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter(CacheKey.isManifestName).sorted()
        guard let run = name else {
            guard let newest = names.last else {
                throw FailureExit.message("no runs in \(folder.path) (use --cache DIR or $TWEETCACHE_CACHE)", code: 1)
            }
            return folder.appendingPathComponent(newest)
        }
        if names.contains(run) { return folder.appendingPathComponent(run) }
        let matching = names.filter { $0.hasPrefix(run) }
        guard matching.count == 1 else {
            throw FailureExit.message(matching.isEmpty ? "no run \(run) in \(folder.path)"
                                      : "\(run) names \(matching.count) runs: \(matching.prefix(5).joined(separator: ", "))", code: 1)
        }
        return folder.appendingPathComponent(matching[0])
    }
}
