import Foundation
import Prometheus
import Synchronization

/// The server's counters in Prometheus text format (`/metrics`).
///
/// One registry per server rather than the process-wide MetricsSystem, so two
/// servers in one process (tests) keep separate counts.
package final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let generated: Counter
    private let memoryHits: Counter
    private let diskHits: Counter
    private let renders: DurationHistogram

    static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    package init() {
        generated = registry.makeCounter(descriptor: Self.generatedName)
        memoryHits = registry.makeCounter(descriptor: Self.hitsName, labels: [("store", "memory")])
        diskHits = registry.makeCounter(descriptor: Self.hitsName, labels: [("store", "disk")])
        renders = registry.makeDurationHistogram(descriptor: Self.renderName, labels: [], buckets: Self.latencyBuckets)
    }

    static var requestsName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "http_requests", unitName: "total",
        helpText: "HTTP requests by route and status.") }
    static var latencyName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "http_request_duration", unitName: "seconds",
        helpText: "Time from request to response head, by route.") }
    static var generatedName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "tiles_generated", unitName: "total",
        helpText: "Tiles, IIIF images and thumbnails made on request.") }
    static var hitsName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "cache_hits", unitName: "total",
        helpText: "Responses served from the memory or disk cache instead of being made.") }
    static var renderName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "render_duration", unitName: "seconds",
        helpText: "Time to make one tile, IIIF image or thumbnail on request.") }

    private struct RouteMetrics {
        var counters: [Int: Counter] = [:]
        var latency: DurationHistogram?
    }

    /// The registry builds label strings on every lookup; requests look up their
    /// counters here instead (a handful of routes times a handful of statuses).
    private let byRoute = Mutex([String: RouteMetrics]())

    /// The counter and latency histogram of one route and status.
    package struct RequestMetrics: Sendable {
        let counter: Counter
        let latency: DurationHistogram

        func record(_ duration: Duration) {
            counter.increment()
            latency.record(duration)
        }
    }

    func request(route: String, status: Int, duration: Duration) {
        metrics(route: route, status: status).record(duration)
    }

    package func metrics(route: String, status: Int) -> RequestMetrics {
        byRoute.withLock { table -> RequestMetrics in
            var entry = table[route] ?? RouteMetrics()
            let counter = entry.counters[status] ?? registry.makeCounter(
                descriptor: Self.requestsName, labels: [("route", route), ("status", String(status))])
            let latency = entry.latency ?? registry.makeDurationHistogram(
                descriptor: Self.latencyName, labels: [("route", route)], buckets: Self.latencyBuckets)
            if entry.counters[status] == nil || entry.latency == nil {
                entry.counters[status] = counter
                entry.latency = latency
                table[route] = entry
            }
            return RequestMetrics(counter: counter, latency: latency)
        }
    }

    static var integrityName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "integrity_failures", unitName: "total",
        helpText: "Files read back from disk or the bucket that did not match their SHA-256 (never served).") }

    /// Counts a file that failed its check: `kind` original, thumbnail or pack,
    /// `source` disk or bucket.
    func integrityFailure(kind: String, source: String) {
        registry.makeCounter(descriptor: Self.integrityName, labels: [("kind", kind), ("source", source)]).increment()
    }

    static var storeUpName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "store_up", unitName: "",
        helpText: "1 while the object store answers, 0 while it is marked down.") }
    static var storeChangesName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "store_state_changes", unitName: "total",
        helpText: "Times the object store was marked down or up again.") }

    /// The object store's state (only servers with one report it).
    func storeUp(_ up: Bool) {
        let gauge = registry.makeGauge(descriptor: Self.storeUpName)
        let previous = storeState.withLock { state -> Bool? in
            defer { state = up }
            return state
        }
        gauge.set(Int64(up ? 1 : 0))
        if let previous, previous != up { registry.makeCounter(descriptor: Self.storeChangesName).increment() }
    }
    private let storeState = Mutex<Bool?>(nil)

    static var refusedName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "renders_refused", unitName: "total",
        helpText: "Renders refused with 429: a client asked for more new images than its share.") }
    static var droppedName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "renders_dropped", unitName: "total",
        helpText: "Renders dropped before they started because every client waiting for them had hung up.") }
    static var leftName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "clients_left", unitName: "total",
        helpText: "Connections whose client hung up.") }

    static var undecodableName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "originals_undecodable", unitName: "total",
        helpText: "Originals found undecodable (answered 415 or 422 from then on without decoding again).") }

    static var regionName: MetricNameDescriptor { MetricNameDescriptor(
        namespace: "tweetcache", metricName: "originals_decoded_in_part", unitName: "total",
        helpText: "Tiles cut from a decode of only the part of the original under them (no pack, image not in memory).") }

    func undecodable() { registry.makeCounter(descriptor: Self.undecodableName).increment() }
    func decodedInPart() { registry.makeCounter(descriptor: Self.regionName).increment() }
    func renderRefused() { registry.makeCounter(descriptor: Self.refusedName).increment() }
    func renderDropped() { registry.makeCounter(descriptor: Self.droppedName).increment() }
    func clientLeft() { registry.makeCounter(descriptor: Self.leftName).increment() }

    func memoryHit() { memoryHits.increment() }
    func diskHit() { diskHits.increment() }

    func rendered(_ duration: Duration) {
        generated.increment()
        renders.record(duration)
    }

    func text() -> [UInt8] {
        var out: [UInt8] = []
        registry.emit(into: &out)
        return out
    }
}
