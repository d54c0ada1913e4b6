import CacheCore
import ArgumentParser
import BlobStore
import Foundation
import Inspect
import MediaFetch
import Pipeline

/// Options shared by every command that fetches.
struct FetchOptions: ParsableArguments {
    @OptionGroup var location: CacheOption

    @OptionGroup var mirrors: MirrorOptions

    @Flag(name: .long, help: "Also download the highest-bitrate MP4 of videos and GIFs (posters are always fetched).")
    var videos = false

    @Option(name: .long, help: "Transfers at once, all hosts together.")
    var concurrency: Int = 16

    @Option(name: .long, help: "Transfers at once to one host over HTTP/1.1 (its connections); over HTTP/2 one connection carries up to --concurrency.")
    var perHost: Int = 8

    @Option(name: .long, help: ArgumentHelp("Largest body accepted, e.g. 32MB, 500KB.", valueName: "SIZE"))
    var maxSize = ByteSize(32 << 20)

    @Option(name: .long, help: "Seconds allowed to connect.")
    var connectTimeout: Int = 10

    @Option(name: .long, help: "Abandon a transfer slower than 1 KB/s for this many seconds.")
    var stallTimeout: Int = 20

    @Option(name: .long, help: "Attempts per URL for transient failures (429, 5xx, resets, timeouts).")
    var attempts: Int = 4

    @Option(name: .long, help: ArgumentHelp("Also write the manifest to this path.", valueName: "PATH"))
    var manifest: String?

    @Option(name: .long, help: ArgumentHelp("Zoom tiles for media: eager (now), lazy (when first served), none.", valueName: "MODE"))
    var tiles = TileMode.eager

    @Flag(name: .long, inversion: .prefixedNo,
          help: "PDQ perceptual hashes of every image, for `dupes`, `match` and the manifest's `pdq`.")
    var pdq = true

    @Option(name: .long, help: ArgumentHelp("Thumbnail sizes (long edge, pixels), comma-separated; empty for none.", valueName: "SIZES"))
    var thumbSizes: String = "150,600"

    @Option(name: .long, help: "Tile size for zoom pyramids.")
    var tileSize: Int = 256

    @Option(name: .long, help: "Deep Zoom tile overlap.")
    var overlap: Int = 0

    @Flag(name: .long, help: "Exit with status 1 if any URL failed or any input had problems.")
    var strict = false

    @Flag(name: .long, help: "Print a machine-readable JSON summary on standard output.")
    var json = false

    @Flag(name: .long, help: "No progress display.")
    var quiet = false

    @OptionGroup var storage: StoreOptions

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 256") }
        guard (1...64).contains(perHost) else { throw ValidationError("--per-host must be between 1 and 64") }
        guard (1...20).contains(attempts) else { throw ValidationError("--attempts must be between 1 and 20") }
        guard connectTimeout > 0, stallTimeout > 0 else { throw ValidationError("timeouts must be positive") }
        guard maxSize.bytes > 0 else { throw ValidationError("--max-size must be more than 0 bytes") }
        _ = try parsedThumbSizes()
        guard (16...4096).contains(tileSize) else { throw ValidationError("--tile-size must be between 16 and 4096") }
        guard (0...8).contains(overlap) else { throw ValidationError("--overlap must be between 0 and 8") }
        // Refused before any request or download, with the path and the reason.
        if let manifest {
            // `--cache out/c --manifest out/m.json` in an empty folder: `out` is made with
            // the cache, as the run would make it, so the copy's folder is there.
            let folder = URL(fileURLWithPath: manifest).standardizedFileURL.deletingLastPathComponent().path
            let cache = cacheURL.standardizedFileURL.path
            if cache == folder || cache.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") {
                try? FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            }
            do { _ = try ManifestCopy(path: URL(fileURLWithPath: manifest)) } catch {
                throw FailureExit.message("--manifest: \(error.description)", code: 2)
            }
        }
        if let problem = certificateAuthorities.problem {
            throw ValidationError(storage.cacert != nil ? "--cacert: \(problem)" : "\(problem) (named by CURL_CA_BUNDLE, SSL_CERT_FILE or SSL_CERT_DIR)")
        }
    }

    var cacheURL: URL { location.url }

    /// `--cacert`, or what the environment names the way curl reads it.
    var certificateAuthorities: CertificateAuthorities {
        storage.cacert.map { CertificateAuthorities(bundleFile: $0) }
            ?? .fromEnvironment(ProcessInfo.processInfo.environment)
    }

    func parsedThumbSizes() throws -> [Int] { try Self.thumbSizes(thumbSizes) }

    /// `--thumb-sizes` as `fetch` and `serve` read it: comma-separated long edges, 8-4096.
    static func thumbSizes(_ thumbSizes: String) throws -> [Int] {
        let parts = thumbSizes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return try parts.map { part in
            guard let n = Int(part), (8...4096).contains(n) else {
                throw ValidationError("--thumb-sizes: '\(part)' is not a size between 8 and 4096")
            }
            return n
        }
    }

    /// The pipeline options these flags describe, with extra mirrors (the demo's).
    func pipelineOptions(extraMirrors: [String] = []) throws -> PipelineOptions {
        var fetch = FetchConfiguration()
        fetch.maxConcurrentTransfers = concurrency
        fetch.maxTransfersPerHost = perHost
        fetch.maxBytes = maxSize.bytes
        fetch.connectTimeout = .seconds(connectTimeout)
        fetch.lowSpeedTime = .seconds(stallTimeout)
        fetch.maxAttempts = attempts
        fetch.mirrors = try mirrors.map(extra: extraMirrors)
        fetch.certificateAuthorities = certificateAuthorities
        var options = PipelineOptions(cacheRoot: cacheURL, fetch: fetch)
        options.includeVideos = videos
        options.extraManifestPath = manifest.map { URL(fileURLWithPath: $0) }
        var derive = DeriveOptions()
        derive.thumbnailSizes = try parsedThumbSizes()
        derive.tiles = tiles
        derive.tileSize = tileSize
        derive.overlap = overlap
        derive.perceptualHashes = pdq
        options.derive = derive.thumbnailSizes.isEmpty && derive.tiles != .eager ? nil : derive
        return options
    }
}
