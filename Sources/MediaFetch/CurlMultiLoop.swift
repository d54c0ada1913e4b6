internal import CCurl
internal import CTweetCache
import Foundation
import Synchronization

/// One libcurl multi handle driven by its own thread.
///
/// libcurl handles are not thread-safe, and `curl_multi_poll` blocks, so the multi
/// handle and every easy handle in it live on this thread only. Other threads hand
/// work over through a locked queue and `curl_multi_wakeup` (the one multi call that
/// is safe from another thread). Admission control happens here too: at most
/// `maxTotal` transfers run, and at most `maxPerHost` to one host, the rest wait in
/// FIFO order. A media download's timeouts count only time spent on the network; a
/// request with a deadline (``CurlTransfer/deadline``) counts its time in the queue
/// too, and ends with a timeout when the deadline passes while it waits.
final class CurlMultiLoop: @unchecked Sendable {
    private struct Shared {
        var pending: [CurlTransfer] = []
        /// Held, not named by `ObjectIdentifier`: a transfer that ended and was freed
        /// before the loop looked would leave its address to the next one allocated,
        /// which its stale cancel would then end (a stream's reader cancels on leaving,
        /// after the end too).
        var cancelled: [CurlTransfer] = []
        var stopping = false
    }

    private let multi: UnsafeMutableRawPointer
    private let shared = Mutex(Shared())
    private let maxTotal: Int
    private let maxPerHost: Int
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    // Owned by the loop thread.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var perHost: [String: Int] = [:]
    private var multiplexedHosts: Set<String> = []
    private var waiting: [CurlTransfer] = []

    init(maxTotal: Int, maxPerHost: Int) throws(FetchError) {
        try CurlGlobal.initialize()
        guard let m = curl_multi_init() else { throw .curlUnavailable("curl_multi_init failed") }
        multi = m
        self.maxTotal = max(1, maxTotal)
        self.maxPerHost = max(1, maxPerHost)
        tc_multi_setopt_long(m, CURLMOPT_MAX_HOST_CONNECTIONS, self.maxPerHost)
        tc_multi_setopt_long(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, self.maxTotal)
        tc_multi_setopt_long(m, CURLMOPT_MAXCONNECTS, self.maxTotal * 2)
        tc_multi_setopt_long(m, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        let t = Thread { [unowned self] in self.run() }
        t.name = "tweetcache.curl"
        t.stackSize = 1 << 20
        thread = t
        t.start()
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    /// Queues a transfer; its `onComplete` runs on the loop thread when it ends.
    func submit(_ transfer: CurlTransfer) {
        shared.withLock { $0.pending.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Queues several transfers with one wake-up of the loop.
    func submit(contentsOf transfers: [CurlTransfer]) {
        guard !transfers.isEmpty else { return }
        shared.withLock { $0.pending.append(contentsOf: transfers) }
        curl_multi_wakeup(multi)
    }

    /// Asks the loop to abandon a transfer; it completes with `.cancelled`.
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelRequested.store(true, ordering: .sequentiallyConsistent)
        shared.withLock { $0.cancelled.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Stops the thread after cancelling what is left, and waits for it.
    func shutdown() {
        let already = shared.withLock { s -> Bool in
            defer { s.stopping = true }
            return s.stopping
        }
        guard !already else { return }
        curl_multi_wakeup(multi)
        finished.wait()
    }

    private func run() {
        var running: Int32 = 0
        while true {
            let (incoming, cancels, stopping) = shared.withLock { s in
                defer { s.pending.removeAll(keepingCapacity: true); s.cancelled.removeAll() }
                return (s.pending, s.cancelled, s.stopping)
            }
            for t in incoming {
                // Cancelled before it got here (its cancel may have come first): ends at once.
                if t.cancelRequested.load(ordering: .sequentiallyConsistent) {
                    t.onComplete?(CurlOutcome(failure: .cancelled, status: 0, kind: .unknown, contentType: nil,
                                              retryAfter: nil, received: 0, effectiveURL: t.url))
                } else {
                    waiting.append(t)
                }
            }
            if !cancels.isEmpty { cancelTransfers(Set(cancels.map(ObjectIdentifier.init))) }
            if stopping {
                cancelTransfers(nil)
                break
            }
            expireWaiting()
            admit()
            curl_multi_perform(multi, &running)
            if !waiting.isEmpty { noteMultiplexedHosts() }
            let completedAny = drainMessages()
            // Finished transfers free slots: start waiting ones before sleeping in poll,
            // or each batch would wait out the poll timeout on idle keep-alive sockets.
            let startMore = (completedAny || admissible) && !waiting.isEmpty
            admissible = false
            if startMore { continue }
            curl_multi_poll(multi, nil, 0, pollMilliseconds(), nil)
        }
        finished.signal()
    }

    /// Set when a host turned out to multiplex, so waiting transfers start before the poll.
    private var admissible = false

    /// An origin that answered over HTTP/2 or later multiplexes; one that answered over
    /// HTTP/1 (a new server behind the name, a proxy) is counted by connections again.
    private func noteMultiplexedHosts() {
        for t in active.values {
            if t.responseVersion >= 2, !multiplexedHosts.contains(t.hostKey) {
                multiplexedHosts.insert(t.hostKey)
                admissible = true
            } else if t.responseVersion == 1 {
                multiplexedHosts.remove(t.hostKey)
            }
        }
    }

    /// Ends waiting transfers whose deadline passed, as timeouts.
    private func expireWaiting() {
        guard waiting.contains(where: { $0.deadline != nil }) else { return }
        let now = ContinuousClock.now
        waiting.removeAll { t in
            guard let deadline = t.deadline, deadline - now <= .milliseconds(1) else { return false }
            t.onComplete?(CurlOutcome(failure: .timedOut("no connection free before the deadline"), status: 0, kind: .unknown,
                                      contentType: nil, retryAfter: nil, received: 0, effectiveURL: t.url))
            return true
        }
    }

    /// How long to sleep in poll: at most 1 s, less when a waiting transfer's deadline comes first.
    private func pollMilliseconds() -> Int32 {
        let now = ContinuousClock.now
        guard let next = waiting.compactMap(\.deadline).min() else { return 1000 }
        let left = next - now
        let ms = Int(left.components.seconds) * 1000 + Int(left.components.attoseconds / 1_000_000_000_000_000) + 1
        return Int32(min(1000, max(1, ms)))
    }

    private func admit() {
        guard !waiting.isEmpty, active.count < maxTotal else { return }
        var kept: [CurlTransfer] = []
        kept.reserveCapacity(waiting.count)
        for t in waiting {
            let cap = multiplexedHosts.contains(t.hostKey) ? maxTotal : maxPerHost
            if active.count < maxTotal, perHost[t.hostKey, default: 0] < cap {
                guard t.startsBeforeDeadline(now: .now) else {
                    t.onComplete?(CurlOutcome(failure: .timedOut("no connection free before the deadline"), status: 0,
                                              kind: .unknown, contentType: nil, retryAfter: nil, received: 0, effectiveURL: t.url))
                    continue
                }
                let rc = curl_multi_add_handle(multi, t.easy)
                if rc == CURLM_OK {
                    active[t.easy] = t
                    perHost[t.hostKey, default: 0] += 1
                } else {
                    t.onComplete?(CurlOutcome(
                        failure: .transport(code: Int(rc.rawValue), message: String(cString: curl_multi_strerror(rc))),
                        status: 0, kind: .unknown, contentType: nil, retryAfter: nil, received: 0, effectiveURL: t.url))
                }
            } else {
                kept.append(t)
            }
        }
        waiting = kept
    }

    private func drainMessages() -> Bool {
        var any = false
        var left: Int32 = 0
        while let msg = curl_multi_info_read(multi, &left) {
            guard tc_multi_msg_is_done(msg) != 0, let easy = tc_multi_msg_easy(msg) else { continue }
            let code = tc_multi_msg_result(msg)
            guard let t = active.removeValue(forKey: easy) else { continue }
            curl_multi_remove_handle(multi, easy)
            release(t)
            t.onComplete?(t.outcome(code: code))
            any = true
        }
        return any
    }

    private func release(_ t: CurlTransfer) {
        if let n = perHost[t.hostKey], n > 1 { perHost[t.hostKey] = n - 1 } else { perHost[t.hostKey] = nil }
    }

    /// Cancels the given transfers, or all when `ids` is nil.
    private func cancelTransfers(_ ids: Set<ObjectIdentifier>?) {
        let cancelledOutcome = { (t: CurlTransfer) in
            CurlOutcome(failure: .cancelled, status: 0, kind: .unknown, contentType: nil,
                        retryAfter: nil, received: 0, effectiveURL: t.url)
        }
        for (easy, t) in active where ids?.contains(ObjectIdentifier(t)) ?? true {
            curl_multi_remove_handle(multi, easy)
            active[easy] = nil
            release(t)
            t.onComplete?(cancelledOutcome(t))
        }
        waiting.removeAll { t in
            guard ids?.contains(ObjectIdentifier(t)) ?? true else { return false }
            t.onComplete?(cancelledOutcome(t))
            return true
        }
    }
}

/// What a transfer sets for CURLOPT_CAINFO and CURLOPT_CAPATH (see ``CurlGlobal/trustOptions(for:)``).
struct CurlTrustOptions: Sendable {
    var bundleFile: String?
    /// Set CAINFO to NULL, so libcurl's built-in bundle is not loaded.
    var clearsBundle: Bool
    var directory: String?

    /// Sets them on an easy handle: every transfer and connection trusts the same way.
    func apply(to easy: UnsafeMutableRawPointer) {
        if clearsBundle { tc_easy_setopt_pointer(easy, CURLOPT_CAINFO, nil) }
        if let bundleFile { tc_easy_setopt_string(easy, CURLOPT_CAINFO, bundleFile) }
        if let directory { tc_easy_setopt_string(easy, CURLOPT_CAPATH, directory) }
    }
}

/// `curl_global_init` must run once, before any other libcurl call, and is not
/// thread-safe in libcurl 7.88: a lock makes "once" true under concurrency.
enum CurlGlobal {
    private static let state = Mutex<CURLcode?>(nil)

    static func initialize() throws(FetchError) {
        let rc = state.withLock { s -> CURLcode in
            if let s { return s }
            let rc = tc_curl_global_init()
            s = rc
            return rc
        }
        guard rc == CURLE_OK else { throw .curlUnavailable(String(cString: curl_easy_strerror(rc))) }
    }

    /// The CA options to give libcurl for these authorities.
    ///
    /// With the system trust store, libcurl hands OpenSSL both its CA bundle and its CA
    /// directory. OpenSSL 3 parses the whole bundle (~150 certificates) for every new TLS
    /// context: about 15 ms of CPU, more than the handshake itself and a tenth of
    /// fetching 50 MB over HTTP/2. From a directory of subject-hash names it reads only
    /// the one or two certificates a server's chain needs. So when the authorities are
    /// the system's — by default, or because `CURL_CA_BUNDLE` / `SSL_CERT_FILE` name the
    /// system bundle itself, as many images set them — and the system directory has
    /// hash names, only the directory is used. Debian's `update-ca-certificates` writes
    /// both from one list, so the trust is the same. Anything else is passed as given.
    static func trustOptions(for authorities: CertificateAuthorities) -> CurlTrustOptions {
        if let cached = trustCache.withLock({ $0[authorities] }) { return cached }
        let system = systemCALocations
        func resolved(_ path: String) -> String? {
            guard let p = realpath(path, nil) else { return nil }
            defer { free(p) }
            return String(cString: p)
        }
        func same(_ a: String, _ b: String?) -> Bool {
            guard let b else { return false }
            if a == b { return true }
            guard let ra = resolved(a), let rb = resolved(b) else { return false }
            return ra == rb
        }
        let bundleIsSystem = authorities.bundleFile.map { same($0, system.bundle) } ?? true
        let directoryIsSystem = authorities.directory.map { same($0, system.directory) } ?? true
        let options: CurlTrustOptions
        if bundleIsSystem, directoryIsSystem, let directory = system.directory, system.directoryIsHashed {
            options = CurlTrustOptions(bundleFile: nil, clearsBundle: true, directory: directory)
        } else {
            options = CurlTrustOptions(
                bundleFile: authorities.bundleFile, clearsBundle: false, directory: authorities.directory)
        }
        trustCache.withLock { $0[authorities] = options }
        return options
    }

    private static let trustCache = Mutex<[CertificateAuthorities: CurlTrustOptions]>([:])

    /// libcurl's built-in CA bundle and directory (CURLINFO_CAINFO/CAPATH, libcurl 7.84+),
    /// and whether the directory holds OpenSSL's subject-hash names.
    private static let systemCALocations: (bundle: String?, directory: String?, directoryIsHashed: Bool) = {
        guard (try? initialize()) != nil, let easy = curl_easy_init() else { return (nil, nil, false) }
        defer { curl_easy_cleanup(easy) }
        func info(_ what: CURLINFO) -> String? {
            var path: UnsafePointer<CChar>?
            guard tc_easy_getinfo_string(easy, what, &path) == CURLE_OK, let path else { return nil }
            return String(cString: path)
        }
        let bundle = info(CURLINFO_CAINFO), directory = info(CURLINFO_CAPATH)
        let names = directory.map { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] } ?? []
        let hashNames = names.lazy.filter { name in
            let parts = name.split(separator: ".")
            return parts.count == 2 && parts[0].count == 8 && parts[0].allSatisfy(\.isHexDigit)
                && parts[1].allSatisfy(\.isNumber)
        }.count
        // A store of the public CAs has well over a hundred; a few (a local CA, a snake-oil
        // certificate) do not make a trust store that could replace the bundle.
        return (bundle, directory, hashNames >= 50)
    }()

    /// libcurl's version and whether it was built with HTTP/2, for `--version` and logs.
    static var versionSummary: String {
        guard let info = tc_curl_version_info() else { return "libcurl (unknown)" }
        let version = String(cString: info.pointee.version)
        let http2 = (info.pointee.features & CURL_VERSION_HTTP2) != 0
        return "libcurl \(version)\(http2 ? " (HTTP/2)" : "")"
    }
}
