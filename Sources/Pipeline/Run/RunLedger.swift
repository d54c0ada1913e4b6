import CacheCore
import BlobStore
import Catalog
import MediaFetch
import TweetModel

/// What a run remembers from batch to batch, in memory that grows far slower than
/// the run: compact sets of the posts and URLs it has met (8 bytes each), recent
/// outcomes and derivations (bounded; the index answers for the rest: an image
/// derived earlier and forgotten costs a look at its files again), and the URLs that
/// failed (kept whole: a URL is tried at most once per run).
struct RunLedger {
    var summary = RunSummary()
    /// Originals read from the shared store instead of their origin, and their bytes.
    var copiedFromStore = 0
    /// The `--mirror` hosts some URL of the run went through.
    var mirrorsUsed = Set<String>()
    var bytesFromStore = 0
    var topPosts = KeySet()
    var includedPosts = KeySet()
    /// Hashes of every URL met, to count each once.
    var seenURLs = KeySet()
    /// Hashes of every image met, to count each derivation once.
    var seenImages = KeySet()
    /// With whether tiles were asked for (an image first met as an avatar gets none).
    var derived = RecentCache<BlobHash, (outcome: DeriveOutcome, withTiles: Bool)>(capacity: 4_096)
    private var stored = RecentCache<String, ItemOutcome>(capacity: 16_384)
    private var failed: [String: FetchFailure] = [:]

    /// What became of `url` earlier in this run, if the ledger still knows.
    mutating func outcome(of url: String) -> ItemOutcome? {
        if let failure = failed[url] { return .failed(failure) }
        return stored.get(url)
    }

    mutating func remember(_ url: String, _ outcome: ItemOutcome) {
        switch outcome {
        case .stored: stored.set(url, outcome)
        case let .failed(f): failed[url] = f
        }
    }
}

/// One input's entry in the manifest's `sources`, gathered piece by piece. Problems
/// are listed up to ``listed`` and counted beyond: a broken file of a million lines
/// has a problem a line.
struct SourceTally {
    var path: String
    var formats: [String] = []
    var query: String?
    var tweets = 0
    var problems: [Manifest.Problem] = []
    var unlisted = 0
    static let listed = 1000
    /// The search the input came from, with its newest post found as the pages pass.
    var search: Manifest.SearchRecord?
    private var newestID: DecimalID?

    init(path: String, search: Manifest.SearchRecord? = nil) {
        self.path = path
        self.search = search
    }

    /// Adds a piece's facts; returns how many problems it had.
    mutating func add(_ piece: ParsedResults) -> Int {
        for page in piece.pages {
            if !formats.contains(page.format.rawValue) { formats.append(page.format.rawValue) }
            if query == nil { query = page.query }
            tweets += page.tweets.count
            if search != nil { noteNewest(page.tweets) }
        }
        let found = piece.allProblems
        add(problems: found)
        return found.count
    }

    mutating func add(problems new: [ParseProblem]) {
        for p in new {
            if problems.count < Self.listed {
                problems.append(Manifest.Problem(source: p.source, location: p.location, message: p.message))
            } else {
                unlisted += 1
            }
        }
    }

    var entry: Manifest.Source {
        var listed = problems
        if unlisted > 0 {
            listed.append(Manifest.Problem(source: path, location: "document",
                                           message: "\(unlisted) more problems, not listed"))
        }
        return Manifest.Source(path: path, formats: formats, query: query, tweets: tweets, problems: listed, search: search)
    }

    /// The newest of the page's posts: by id where ids are numbers (X, Mastodon), and
    /// by time (Bluesky, whose ids do not order).
    private mutating func noteNewest(_ posts: [Tweet]) {
        for post in posts {
            if let id = DecimalID(post.id), newestID.map({ id > $0 }) ?? true {
                newestID = id
                search?.newestID = id.digits
            }
            if let at = post.createdAt, search?.newestAt.map({ at > $0 }) ?? true { search?.newestAt = at }
        }
    }
}
