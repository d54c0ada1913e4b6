import ArgumentParser
import BlobStore
import Catalog
import Foundation
import Inspect
import TweetModel

/// `tweetcache dupes`: groups of near-identical photos across posts and networks.
struct DupesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dupes",
        abstract: "List groups of near-identical photos (PDQ perceptual hashes), earliest post first.",
        discussion: """
            Photos whose PDQ hashes are at most THRESHOLD bits apart (turned and mirrored \
            copies included) are one group; a group lists each image with the posts that use \
            it, the earliest post first: who posted the picture first. Byte-identical copies \
            are one image. Photos too flat to hash (PDQ quality below 50) are left out.
            """)

    @Option(name: .long, help: "Largest Hamming distance (of 256 bits) that counts as the same picture.")
    var threshold: Int = PostCatalog.defaultPDQThreshold

    @Option(name: .long, help: "Groups to show (0: all).")
    var limit: Int = 0

    @OptionGroup var options: InspectOptions

    func validate() throws {
        guard (0...128).contains(threshold) else { throw ValidationError("--threshold must be 0-128 bits") }
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        // Long steps at a million photos (about a minute): said as they come.
        let progress = WorkProgress(unit: .items("photos"))
        let display = WorkProgressDisplay("dupes", progress: progress, enabled: !options.json)
        defer { display.finish() }  // also when the catalog cannot be read
        progress.setPhase("opening the catalog")
        let snapshot = try options.snapshot()
        progress.setPhase("reading the photos' hashes")
        // Groups are found by PDQJoin's sorted runs, not by searching: no search index.
        let index = try snapshot.catalog.perceptualIndex(searchable: threshold > 31, kept: false)
        progress.setPhase("grouping \(index.index.count) photos")
        let (groups, total) = try snapshot.catalog.duplicateGroups(
            threshold: threshold, in: index, limit: limit == 0 ? .max : limit)
        display.finish()
        if options.json {
            // {"groups": [...], "hashed", "threshold", "total"} (sorted keys), a group at a
            // time: a million photos' groups are tens of megabytes as one string.
            // Encoded a batch at a time on every core (one core took 2.7 s at a million photos).
            StandardStreams.output("{\n  \"groups\" : [")
            for batch in stride(from: 0, to: groups.count, by: 4_096) {
                let part = groups[batch..<min(groups.count, batch + 4_096)]
                let lanes = ParallelSlices.split(part.indices, parts: ProcessInfo.processInfo.activeProcessorCount)
                let texts = ParallelSlices.map(lanes.count) { lane in
                    Result { try lanes[lane].map { n in
                        (n == 0 ? "\n    " : ",\n    ") + (try InspectJSON.string(part[n])).replacingOccurrences(of: "\n", with: "\n    ")
                    }.joined() }
                }
                for text in texts { StandardStreams.output(try text.get()) }
            }
            StandardStreams.output("\(groups.isEmpty ? "" : "\n  ")],\n  \"hashed\" : \(index.index.count),\n  \"threshold\" : \(threshold),\n  \"total\" : \(total)\n}\n")
            return
        }
        let style = options.style
        var lines = ["\(total) group\(total == 1 ? "" : "s") of near-identical photos among \(index.index.count) hashed (threshold \(threshold) bits)"]
        for (n, group) in groups.enumerated() {
            lines.append("")
            var head = "Group \(n + 1): \(group.images.count) images in \(group.postCount) posts"
            if let first = group.images.first?.posts.first {
                head += ", first posted by @\(first.screenName) (\(first.network))"
                if let date = first.createdAt { head += " on " + Self.day(date) }
            }
            lines.append(style.paint(head, .name))
            for (i, image) in group.images.enumerated() {
                var parts = [String(image.sha256.prefix(12)), i == 0 ? "first" : "\(image.distance) bits"]
                if let transform = image.transform { parts.append(transform) }
                let posts = image.posts.prefix(3).map { p in
                    "@\(p.screenName) \(p.id)\(p.createdAt.map { " " + Self.day($0) } ?? "") (\(p.network))"
                }
                parts.append(posts.joined(separator: ", ") + (image.posts.count > 3 ? ", \(image.posts.count - 3) more" : ""))
                lines.append("  " + parts.joined(separator: "  "))
            }
        }
        if groups.count < total { lines += ["", "\(total - groups.count) more group(s): --limit 0 lists all"] }
        emit(lines.joined(separator: "\n") + "\n")
    }

    static func day(_ date: Date) -> String {
        ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: [.withFullDate])
    }
}
