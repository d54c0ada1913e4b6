import Catalog
import Foundation
import LiveSearch

/// Where a repeated search starts, and what its run records so the next one can:
/// shared by `tweetcache search` and the server's live searches.
///
/// The state is the manifests' (``Manifest/SearchRecord``), read through the catalog:
/// it is rebuilt with the catalog, moves on only when a run's manifest is written, and
/// another machine sharing the bucket has it after `sync`.
public enum SearchState {
    /// What the cache at `cacheRoot` holds of `client`'s search; nil when it holds
    /// nothing of it (a first search), or has no catalog yet.
    public static func held(by client: SearchClient, cacheRoot: URL) throws(CatalogError) -> SearchBoundary? {
        guard FileManager.default.fileExists(atPath: cacheRoot.path) else { return nil }
        let catalog = try PostCatalog(cacheRoot: cacheRoot)
        try catalog.refresh()
        let key = client.key
        guard let held = try catalog.searchBoundary(key: Manifest.SearchRecord.key(api: key.api, base: key.base, query: key.query))
        else { return nil }
        return SearchBoundary(newestID: held.newestID, newestAt: held.newestAt)
    }

    /// The search's saved pages as a run's inputs, each carrying the search, so the
    /// run's manifest records it with the pages' newest posts.
    public static func inputs(of outcome: SearchOutcome, from client: SearchClient) throws(PipelineError) -> [ResultsInput] {
        let key = client.key
        let since = client.options.since
        return try outcome.pages.map { page throws(PipelineError) in
            var input = try ResultsInput.read(page.file.path)
            input.query = client.query.text
            input.search = Manifest.SearchRecord(
                api: key.api, base: key.base, query: key.query, sinceID: since?.newestID, sinceAt: since?.newestAt,
                reached: outcome.reachedHeld)
            return input
        }
    }
}
