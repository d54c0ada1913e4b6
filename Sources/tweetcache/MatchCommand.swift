import ArgumentParser
import Catalog
import Foundation
import Inspect
import MediaTypes

/// `tweetcache match LIST`: which cached photos match a shared list of PDQ hashes.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Find the cached photos (and their posts) that match a list of PDQ hashes.",
        discussion: """
            LIST has one hash a line: 64 hex digits, optionally followed by a comma, tab or \
            space and a label (other columns of a CSV are kept in the label). Blank lines and \
            lines starting with # are skipped; other lines that hold no hash are reported on \
            standard error. Exit status 0 when something matched, 1 when nothing did.
            """)

    @Argument(help: ArgumentHelp("A file of PDQ hashes, or - for standard input.", valueName: "LIST"))
    var list: String

    @Option(name: .long, help: "Largest Hamming distance (of 256 bits) that counts as a match.")
    var threshold: Int = PostCatalog.defaultPDQThreshold

    @OptionGroup var options: InspectOptions

    func validate() throws {
        guard (0...128).contains(threshold) else { throw ValidationError("--threshold must be 0-128 bits") }
    }

    struct Entry: Encodable {
        var line: Int
        var pdq: String
        var label: String?
        var matches: [NearDuplicate]
    }

    func run() throws {
        let text: String
        do {
            let data = list == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: list))
            text = String(decoding: data, as: UTF8.self)
        } catch {
            throw FailureExit.message("cannot read \(list): \(error.localizedDescription)", code: 2)
        }
        let snapshot = try options.snapshot()
        let index = try snapshot.catalog.perceptualIndex()
        var entries: [Entry] = []
        var invalid = 0
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let hex = line.prefix(64)
            let rest = line.dropFirst(64)
            guard let hash = PDQHash(hex: hex), rest.isEmpty || [",", "\t", " "].contains(rest.first!) else {
                invalid += 1
                if invalid <= 20 { StandardStreams.error("tweetcache: \(list):\(number + 1): not a PDQ hash (64 hex digits)\n") }
                continue
            }
            let label = rest.dropFirst().trimmingCharacters(in: .whitespaces)
            let matches = try snapshot.catalog.matches(of: hash, threshold: threshold, in: index)
            entries.append(Entry(line: number + 1, pdq: hash.hex, label: label.isEmpty ? nil : label, matches: matches))
        }
        if invalid > 20 { StandardStreams.error("tweetcache: \(list): \(invalid) lines were not PDQ hashes\n") }
        let matched = entries.filter { !$0.matches.isEmpty }
        if options.json {
            struct Output: Encodable { var threshold: Int; var hashes: Int; var matched: Int; var results: [Entry] }
            print(try InspectJSON.string(Output(threshold: threshold, hashes: entries.count, matched: matched.count, results: matched)))
        } else {
            var lines = ["\(matched.count) of \(entries.count) hash\(entries.count == 1 ? "" : "es") matched \(index.index.count) hashed photos (threshold \(threshold) bits)"]
            for entry in matched {
                lines.append("")
                lines.append(options.style.paint("line \(entry.line): \(entry.label ?? String(entry.pdq.prefix(16)))", .name))
                for m in entry.matches {
                    let posts = m.posts.prefix(3).map { "@\($0.screenName) \($0.id) (\($0.network))" }.joined(separator: ", ")
                    lines.append("  \(m.sha256.prefix(12))  \(m.distance) bits  \(posts)\(m.posts.count > 3 ? ", \(m.posts.count - 3) more" : "")")
                }
            }
            emit(lines.joined(separator: "\n") + "\n")
        }
        if matched.isEmpty { throw ExitCode(1) }
    }
}
