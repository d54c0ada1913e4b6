import ArgumentParser
import CacheCore
import BlobStore
import Foundation
import Logging
import MediaFetch
import ObjectStore
import Pipeline

/// `--store s3://BUCKET[/PREFIX]` and `--local-max`: the cache's files in
/// S3-compatible object storage, shared by machines, with the local `--cache`
/// holding the index and a bounded read-through copy.
///
/// Endpoint, region and credentials come from the configuration AWS tools use
/// (the environment, `AWS_PROFILE` in `~/.aws/credentials` and `~/.aws/config`,
/// `credential_process`, container and instance metadata), never from flags, so
/// they do not end up in shell history or `ps`.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Where the cache's files are shared: a bucket, s3://BUCKET[/PREFIX], or a folder every machine mounts, file:///PATH (default: $TWEETCACHE_STORE). For a bucket, Endpoint, region and credentials as the AWS CLI finds them: AWS_ENDPOINT_URL(_S3), AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, else AWS_PROFILE's profile in ~/.aws/credentials and ~/.aws/config (endpoint_url, services, region, ca_bundle, credential_process), else the container or instance metadata endpoint.",
        valueName: "URL"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("Trust the CA certificates in this PEM file (a TLS-inspecting proxy's, a private mirror's, a private object store's) in place of the system bundle (the system CA directory, if libcurl has one, still applies, as with curl); default: $AWS_CA_BUNDLE or the profile's ca_bundle for the store, $CURL_CA_BUNDLE, else $SSL_CERT_FILE / $SSL_CERT_DIR, else the system's.", valueName: "FILE"))
    var cacert: String?

    @Option(name: .long, help: ArgumentHelp("With --store: the most disk the local copy of the bucket's objects may use (LRU).", valueName: "SIZE"))
    var localMax = ByteSize(2 << 30)

    /// `--store`, else `$TWEETCACHE_STORE`.
    var storeText: String? {
        if let store { return store }
        let value = ProcessInfo.processInfo.environment["TWEETCACHE_STORE"]?.trimmingCharacters(in: .whitespaces)
        return value?.isEmpty == false ? value : nil
    }

    /// Where the store was named, for messages: `--store`, or `$TWEETCACHE_STORE` when
    /// the environment gave it (the user must be told which to fix).
    var storeSource: String { store != nil ? "--store" : "$TWEETCACHE_STORE" }

    func validate() throws {
        if let text = storeText, !text.hasPrefix("file:") {
            do { _ = try S3Location(url: text) } catch {
                throw ValidationError("\(storeSource): \(error.description) (or file:///PATH for a folder)")
            }
        }
    }

    var localMaxBytes: Int { localMax.bytes }

    /// Where settings came from, at debug level (`TWEETCACHE_LOG=debug`): sources, never values.
    static let logger = Logger(label: "tweetcache.store")

    /// The bounded local copy of the bucket's objects in the cache `layout` describes.
    func readThrough(_ storage: any CacheStorage, layout: CacheLayout) throws -> ReadThroughCache {
        do {
            return try ReadThroughCache(storage: storage, folder: layout.objectsURL, capacity: localMaxBytes,
                                        quarantine: layout.quarantineURL.appendingPathComponent("bucket"))
        } catch {
            throw FailureExit.message("cannot use \(layout.objectsURL.path): \(error)", code: 2)
        }
    }

    /// For commands that read files whole (`export`, `info`): the bucket's runs
    /// into the cache (``BucketSync``), then the objects `paths` picks from them
    /// copied into the cache directory (``BucketHydrator``). Nothing without `--store`.
    func hydrate(cacheRoot: URL, paths: @escaping (CacheLayout) -> [String]) async throws {
        guard let storage = try await open() else { return }
        defer { storage.shutdown() }
        let cache: Cache
        do { cache = try Cache.open(cacheRoot) } catch { throw FailureExit.message(error.description, code: 2) }
        do { _ = try await BucketSync(storage: storage, layout: cache.layout).run() } catch {
            throw FailureExit.message(error.description, code: 2)
        }
        let report = await BucketHydrator(storage: storage, store: cache.blobs).hydrate(paths(cache.layout))
        for (path, why) in report.failed.sorted(by: { $0.key < $1.key }) {
            StandardStreams.error("tweetcache: \(storage.address)/\(path): \(why)\n")
        }
    }

    /// The store, or nil without `--store`: a bucket (``S3Client``) or a folder
    /// (``LocalStorage``), the same to every command. A bucket that is missing or
    /// refuses these credentials ends the command here with status 2, said once;
    /// an endpoint that does not answer does not (each file's upload says so).
    ///
    /// With `explicit`, only `--store` counts, not `$TWEETCACHE_STORE`: commands that
    /// delete (`gc`, `verify --repair`) act on a shared store only when told on
    /// their own command line.
    /// With `writes`, the credentials must also be allowed to write (one small
    /// object put and deleted): read-only keys stop a run here with status 2.
    func open(probe: Bool = true, explicit: Bool = false, health: StoreHealth? = nil, writes: Bool = false) async throws -> (any CacheStorage)? {
        if explicit, store == nil {
            if storeText != nil {
                StandardStreams.error(
                    "tweetcache: $TWEETCACHE_STORE is set; this works on the local cache (give --store to act on the store)\n")
            }
            return nil
        }
        guard let text = storeText else { return nil }
        let storage: any CacheStorage
        do { storage = try Self.storage(text, source: storeSource, cacert: cacert, health: health) } catch {
            throw FailureExit.message(error.description, code: 2)
        }
        guard probe else { return storage }
        do {
            try await storage.probe()
            if writes { try await storage.checkWritable() }
        } catch {
            switch error {
            case .unreachable: StandardStreams.error("tweetcache: \(error.description)\n")
            case .accessDenied where writes:
                storage.shutdown()
                throw FailureExit.message("\(error.description); these credentials may not write to \(storage.address) (read-only?)", code: 2)
            default:
                storage.shutdown()
                throw FailureExit.message(error.description, code: 2)
            }
        }
        return storage
    }

    /// The store `text` names: `file:///PATH` a folder, else an S3 bucket with the
    /// AWS configuration this machine has.
    static func storage(_ text: String, source: String = "--store", cacert: String?, health: StoreHealth?)
        throws(StoreError) -> any CacheStorage
    {
        if text.hasPrefix("file:") {
            guard let url = URL(string: text), url.isFileURL, url.host == nil || url.host == "" || url.host == "localhost",
                  url.path.hasPrefix("/")
            else { throw .invalidLocation("\(source) \(text): a folder is file:///ABSOLUTE/PATH") }
            // A folder store not there yet is made, as a bucket's keys need no folders: the
            // first machine to use it creates it.
            if !FileManager.default.fileExists(atPath: url.path) {
                do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
                    throw .io(path: url.path, reason: "\(source): cannot create the store folder: \(error.localizedDescription)")
                }
                logger.notice("created the store folder \(url.path)")
            }
            return try LocalStorage(root: url)
        }
        let settings = try S3Settings.fromEnvironment(certificateAuthorities: cacert.map { CertificateAuthorities(bundleFile: $0) })
        logger.debug("object store settings", metadata: [
            "credentials": "\(settings.sources["credentials"] ?? "?")", "endpoint": "\(settings.sources["endpoint"] ?? "?")",
            "region": "\(settings.sources["region"] ?? "?")", "profile": "\(settings.sources["profile"] ?? "?")",
        ])
        return try S3Client(location: S3Location(url: text), settings: settings, health: health)
    }
}
