import Catalog
import Foundation

/// Where a run's files go besides the local cache (object storage), batch by batch
/// as the run writes its manifest, so a run of any size publishes in bounded memory
/// and the last upload is close behind the last download.
public protocol RunPublisher: Sendable {
    /// Before the first batch; `run` names the run while it has no manifest name yet.
    func begin(run: String) async
    /// A batch's posts, whose files are in the local cache.
    func publish(_ posts: [ManifestTweet]) async
    /// After the last batch: what publishing came to, and the files that failed.
    func finishObjects() async -> (StoreSummary, [Manifest.Failure])
    /// Puts the finished manifest (`file`, not yet in place) under `name`, when every
    /// file it names is published; the failure, if it was not.
    func publishManifest(file: URL, name: String) async -> Manifest.Failure?
    /// After the manifest is in place.
    func end() async
}
