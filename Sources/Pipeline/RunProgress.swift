import MediaFetch
import Synchronization

/// Live counters of a run, read by a progress display on another task while the
/// pipeline updates them; atomics so neither side waits for the other.
public final class RunProgress: Sendable {
    private let _total = Atomic<Int>(0)
    private let _done = Atomic<Int>(0)
    private let _failed = Atomic<Int>(0)
    private let _cached = Atomic<Int>(0)
    private let _deriveTotal = Atomic<Int>(0)
    private let _deriveDone = Atomic<Int>(0)
    private let _inputTotal = Atomic<Int>(0)
    private let _inputDone = Atomic<Int>(0)
    private let _posts = Atomic<Int>(0)
    /// The batch at work: where in the input it ends, and the counters when it began.
    private let batchStart = Mutex(BatchStart())

    /// A batch's beginning: the share of the input it covers is done as its URLs and
    /// images are, so the share done moves on within a batch and never back.
    public struct BatchStart: Sendable, Equatable {
        public var endsAt = 0
        public var urls = 0, urlsDone = 0, images = 0, imagesDone = 0
        public init(endsAt: Int = 0, urls: Int = 0, urlsDone: Int = 0, images: Int = 0, imagesDone: Int = 0) {
            (self.endsAt, self.urls, self.urlsDone, self.images, self.imagesDone) = (endsAt, urls, urlsDone, images, imagesDone)
        }
    }
    public var batch: BatchStart { batchStart.withLock { $0 } }

    func beginBatch(endingAt offset: Int) {
        let now = BatchStart(endsAt: offset, urls: total, urlsDone: done, images: deriveTotal, imagesDone: deriveDone)
        batchStart.withLock { $0 = now }
    }
    /// Body bytes received so far; the fetcher adds to it as chunks arrive.
    public let bytes = ByteCounter()

    public init() {}

    /// URLs this run needs (cached or not), as far as it has read its inputs.
    public var total: Int { _total.load(ordering: .relaxed) }
    /// URLs finished, whether fetched, already cached or failed.
    public var done: Int { _done.load(ordering: .relaxed) }
    public var failed: Int { _failed.load(ordering: .relaxed) }
    public var cached: Int { _cached.load(ordering: .relaxed) }

    /// Images to derive thumbnails and tiles from; non-zero once deriving started.
    public var deriveTotal: Int { _deriveTotal.load(ordering: .relaxed) }
    public var deriveDone: Int { _deriveDone.load(ordering: .relaxed) }

    /// Bytes of input the run has: the files' sizes, known at the start, and standard
    /// input's once it is read.
    public var inputTotal: Int { _inputTotal.load(ordering: .relaxed) }
    /// Bytes of input whose posts are done (fetched, derived and in the manifest): the
    /// share of the run behind it, which a run's URLs alone cannot tell, since they
    /// are learnt a batch at a time.
    public var inputDone: Int { _inputDone.load(ordering: .relaxed) }
    /// Posts read from the input so far.
    public var posts: Int { _posts.load(ordering: .relaxed) }

    func addInputTotal(_ n: Int) { _inputTotal.add(n, ordering: .relaxed) }
    func setInputDone(_ n: Int) { _inputDone.store(n, ordering: .relaxed) }
    func addPosts(_ n: Int) { _posts.add(n, ordering: .relaxed) }

    func addDeriveTotal(_ n: Int) { _deriveTotal.add(n, ordering: .relaxed) }
    func deriveOne() { _deriveDone.add(1, ordering: .relaxed) }

    /// A run learns its URLs a batch at a time: the total grows as it reads.
    func addTotal(_ n: Int) { _total.add(n, ordering: .relaxed) }
    func finishOne(failed: Bool = false, cached: Bool = false) {
        if failed { _failed.add(1, ordering: .relaxed) }
        if cached { _cached.add(1, ordering: .relaxed) }
        _done.add(1, ordering: .relaxed)
    }
}
