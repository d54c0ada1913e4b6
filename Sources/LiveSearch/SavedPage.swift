import Foundation

/// One results page as the API served it, and where it was saved.
///
/// The saved file is the page byte for byte, so `tweetcache fetch` can re-run any search
/// offline and any other tool can read it as an API response. The page's bytes are
/// not kept besides: a search of ten thousand pages holds none of them, and the run
/// that follows reads them back from the files a piece at a time.
public struct SavedPage: Sendable {
    /// 1-based, in request order.
    public var number: Int
    public var file: URL
    /// Results on the page (v2 `data`, v1.1 `statuses`); 0 when malformed.
    public var tweets: Int
    /// Why the page could not be read as results, when it could not.
    public var problem: String?
}
