import Foundation
import Logging

/// Log lines on standard error, formatted only when a line is written.
///
/// swift-log's `StreamLogHandler` re-renders its metadata string every time a
/// metadata key is set, and a server sets one (the request id) on every request
/// whether or not anything is logged: that showed up as several percent of the
/// tile server's time. This handler keeps the metadata as it is and renders it
/// in `log` only.
struct StderrLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        if let error = event.error { all["error"] = "\(error)" }
        let level = event.level
        let message = event.message
        let rendered = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Date().formatted(.iso8601)
        StandardStreams.error("\(time) \(level) \(label):\(rendered) \(message)\n")
    }
}
