import Foundation

/// Totals of one run, printed by the CLI and stored in the manifest.
public struct RunSummary: Codable, Sendable, Equatable {
    public var tweets: Int = 0
    public var includedTweets: Int = 0
    /// Unique URLs the tweets need.
    public var urls: Int = 0
    /// Already in the cache before this run.
    public var cached: Int = 0
    public var downloaded: Int = 0
    public var failed: Int = 0
    /// Body bytes received this run.
    public var bytesDownloaded: Int = 0
    /// Downloads whose content was already stored under another URL.
    public var deduplicated: Int = 0
    public var failuresByReason: [String: Int] = [:]
    /// Images whose thumbnails or tiles were made this run.
    public var derived: Int = 0
    /// Images whose derivation failed (their reason is in `derive_error`).
    public var deriveFailed: Int = 0
    public var problems: Int = 0
    /// The whole run's wall time.
    public var seconds: Double = 0
    /// Wall time spent with downloads in flight: the rate of `bytesDownloaded` is
    /// measured over this, not over a run whose time went to reading and deriving.
    /// Nil in manifests from before it was kept.
    public var downloadSeconds: Double?
    public var manifestPath: String?
    /// Posts of the input left out because `forget` removed them before (the cache's
    /// tombstone log): an old page fetched again does not bring them back. Nil when none.
    public var forgotten: Int?
    /// What went to object storage, when the run had a `--store`.
    public var store: StoreSummary?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case tweets, urls, cached, downloaded, failed, deduplicated, problems, seconds, derived, forgotten
        case deriveFailed = "derive_failed"
        case downloadSeconds = "download_seconds"
        case includedTweets = "included_tweets"
        case bytesDownloaded = "bytes_downloaded"
        case failuresByReason = "failures_by_reason"
        case manifestPath = "manifest_path"
        case store
    }
}

/// A run's upload to object storage: what was put, what was there already, what
/// failed (each failure is also in the manifest's `failures`, role `store`).
public struct StoreSummary: Codable, Sendable, Equatable {
    /// `s3://bucket/prefix`: never the endpoint's credentials.
    public var location: String
    public var uploaded = 0
    /// Already in the bucket (`412` to `If-None-Match: *`): stored by an earlier run or another machine.
    public var alreadyStored = 0
    public var failed = 0
    public var bytesUploaded = 0
    /// The manifest's key in the bucket; nil when it was not uploaded (something failed).
    public var manifestKey: String?
    /// Originals read from the bucket (their hash checked) instead of downloaded
    /// from their origin, because another machine had stored them; nil in
    /// manifests from before this was counted.
    public var copiedFromStore: Int?
    public var bytesFromStore: Int?
    /// Objects the bucket held under their name with other bytes (damaged, or
    /// replaced behind its back), put back from this machine's verified copy.
    public var replaced: Int?

    public init(location: String) { self.location = location }

    enum CodingKeys: String, CodingKey {
        case location, uploaded, failed, replaced
        case alreadyStored = "already_stored"
        case bytesUploaded = "bytes_uploaded"
        case manifestKey = "manifest_key"
        case copiedFromStore = "copied_from_store"
        case bytesFromStore = "bytes_from_store"
    }
}
