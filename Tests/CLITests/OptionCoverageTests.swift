import Foundation
import Testing
import TestSupport

/// README's usage lines, the commands' real options and the tests' runs, held to each
/// other: a documented option cannot break silently (as `--manifest` once did, with
/// every test green), and an option cannot exist without being documented.
///
/// - README ↔ binary: every option README's usage lines name exists on that command
///   (`tweetcache --experimental-dump-help`), and every option a command shows in its
///   help is named by them. Always run.
/// - README ↔ tests: every documented option was passed to the built binary by some
///   test. `CommandRunner` notes each run's arguments in `TWEETCACHE_OPTION_LOG`;
///   `scripts/test.sh` runs the whole suite with it, then this check over the log
///   (`TWEETCACHE_OPTION_LOG_CHECK`). An option README names through a group line
///   (`[fetch options]`, `[store options]`, `[inspect options]`: one `@OptionGroup`,
///   the same parsing for every command that takes it) counts as run when a test
///   ran it with any of the commands that take the group; an option on a command's
///   own line, only with that command.
@Suite struct OptionCoverageTests {
    let bin: URL
    init() throws { bin = try BuiltProduct.url(named: "tweetcache") }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test func readmeNamesEveryOptionOfEveryCommandAndNoOther() async throws {
        let readme = try UsageLines.parse(String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8))
        let commands = try await CommandOptions.load(bin)
        #expect(readme.commands.count >= 20, "README's usage lines were not found: \(readme.commands.keys.sorted())")
        var problems: [String] = []
        for (command, _) in readme.commands.sorted(by: { $0.key < $1.key }) {
            guard let real = commands[command] else {
                problems.append("README names a command `\(command)` that tweetcache does not have")
                continue
            }
            for name in readme.options(of: command).sorted() where real.option(named: name) == nil {
                problems.append("README names `\(command) --\(name)`, which `\(command)` does not take")
            }
        }
        for (command, real) in commands.sorted(by: { $0.key < $1.key }) {
            guard readme.commands[command] != nil else {
                problems.append("`\(command)` is not in README's usage lines")
                continue
            }
            let documented = readme.options(of: command)
            for option in real.options where documented.isDisjoint(with: option.names) {
                problems.append("`\(command) --\(option.names.sorted().joined(separator: "/--"))` is not in README's usage lines")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["TWEETCACHE_OPTION_LOG_CHECK"] != nil,
                   "scripts/test.sh runs it over the log of the whole suite's runs"))
    func everyDocumentedOptionIsRunByATest() async throws {
        let log = try #require(ProcessInfo.processInfo.environment["TWEETCACHE_OPTION_LOG_CHECK"])
        let readme = try UsageLines.parse(String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8))
        let commands = try await CommandOptions.load(bin)
        let runs = try RunLog.read(URL(fileURLWithPath: log))
        #expect(runs.count >= 50, "the log \(log) holds \(runs.count) runs: was the suite run with TWEETCACHE_OPTION_LOG?")
        let missing = Coverage.missing(readme: readme, commands: commands, runs: runs)
        let covered = Coverage.counts(readme: readme, commands: commands)
        print("OptionCoverageTests: documented options run by tests, per command: "
              + covered.sorted(by: { $0.key < $1.key }).map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        #expect(missing.isEmpty, "README documents options no test runs:\n\(missing.joined(separator: "\n"))")
    }

    /// The check itself: a run log without an option is caught.
    @Test func aDocumentedOptionNoTestRunsIsReported() throws {
        let readme = try UsageLines.parse("""
                tweetcache fetch RESULTS... [--videos] [group options]
                tweetcache demo  [group options] [--port 8080]
                group options:   [--cache DIR] [--no-pdq]

            """)
        let commands: [String: CommandOptions] = [
            "fetch": CommandOptions(options: [.init(names: ["videos"]), .init(names: ["cache"]), .init(names: ["pdq", "no-pdq"])]),
            "demo": CommandOptions(options: [.init(names: ["port"]), .init(names: ["cache"]), .init(names: ["pdq", "no-pdq"])]),
        ]
        #expect(readme.options(of: "demo") == ["cache", "no-pdq", "port"])
        let all = [["fetch", "x", "--videos", "--pdq"], ["demo", "--port=0", "--cache", "c"]]
        #expect(Coverage.missing(readme: readme, commands: commands, runs: all).isEmpty)
        // A group's option run with any command taking the group; a command's own, only with it.
        #expect(Coverage.missing(readme: readme, commands: commands, runs: [["fetch", "--videos", "--no-pdq", "--cache", "c", "--port", "1"]])
            == ["demo --port"])
        #expect(Coverage.missing(readme: readme, commands: commands, runs: [["demo", "--port", "0", "--cache", "c"]])
            == ["fetch --videos", "fetch --no-pdq", "demo --no-pdq"].sorted())
    }
}

/// The options README's usage lines name: indented lines that start with
/// `tweetcache COMMAND` or define a group (`NAME options:`), with their continuation
/// lines. Text in backticks and after ` # ` is prose, not usage.
struct UsageLines {
    var commands: [String: (direct: Set<String>, groups: Set<String>)] = [:]
    var groups: [String: (direct: Set<String>, groups: Set<String>)] = [:]

    static func parse(_ text: String) throws -> UsageLines {
        var result = UsageLines()
        enum Target { case command(String), group(String) }
        var target: Target?
        let optionPattern = try Regex(#"--([a-z][a-z0-9-]*)"#)
        let groupPattern = try Regex(#"\[([a-z]+) options\]"#)
        let groupDefinition = try Regex(#"^ {4}([a-z]+) options:"#)
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            let indent = line.prefix(while: { $0 == " " }).count
            let body = line.drop(while: { $0 == " " })
            if indent == 4, body.hasPrefix("tweetcache ") {
                let command = body.dropFirst("tweetcache ".count).prefix(while: { $0 != " " })
                target = command.hasPrefix("-") ? nil : .command(String(command))
            } else if let match = line.firstMatch(of: groupDefinition) {
                target = .group(String(match.output[1].substring ?? ""))
                line = String(line[match.range.upperBound...])
            } else if indent < 5 || body.isEmpty {
                target = nil
            }
            guard let target else { continue }
            line = line.replacing(try Regex("`[^`]*`"), with: "")
            if let comment = line.range(of: " # ") { line = String(line[..<comment.lowerBound]) }
            let options = Set(line.matches(of: optionPattern).compactMap { $0.output[1].substring.map(String.init) })
            let named = Set(line.matches(of: groupPattern).compactMap { $0.output[1].substring.map(String.init) })
            switch target {
            case let .command(name):
                result.commands[name, default: ([], [])].direct.formUnion(options)
                result.commands[name, default: ([], [])].groups.formUnion(named)
            case let .group(name):
                result.groups[name, default: ([], [])].direct.formUnion(options)
                result.groups[name, default: ([], [])].groups.formUnion(named)
            }
        }
        return result
    }

    /// Options of a group, with the groups it names.
    func options(ofGroup name: String, seen: Set<String> = []) -> Set<String> {
        guard let group = groups[name], !seen.contains(name) else { return [] }
        return group.groups.reduce(group.direct) { $0.union(options(ofGroup: $1, seen: seen.union([name]))) }
    }

    /// Groups a command takes, with the groups they name.
    func groups(of command: String) -> Set<String> {
        var found = Set<String>()
        var queue = Array(commands[command]?.groups ?? [])
        while let next = queue.popLast() {
            guard found.insert(next).inserted else { continue }
            queue += groups[next]?.groups ?? []
        }
        return found
    }

    func options(of command: String) -> Set<String> {
        groups(of: command).reduce(commands[command]?.direct ?? []) { $0.union(options(ofGroup: $1)) }
    }
}

/// What a command really takes, from `tweetcache --experimental-dump-help`: the
/// options and flags its help shows, each with all its names (`--pdq`/`--no-pdq`).
struct CommandOptions {
    struct Option: Equatable {
        var names: Set<String>
    }
    var options: [Option]

    func option(named name: String) -> Option? { options.first { $0.names.contains(name) } }

    static func load(_ bin: URL) async throws -> [String: CommandOptions] {
        let out = try await CommandRunner.run(bin, ["--experimental-dump-help"])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let root = try #require(json["command"] as? [String: Any])
        var result: [String: CommandOptions] = [:]
        for command in root["subcommands"] as? [[String: Any]] ?? [] {
            guard command["shouldDisplay"] as? Bool ?? true, let name = command["commandName"] as? String, name != "help"
            else { continue }
            var options: [Option] = []
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                guard argument["kind"] as? String != "positional", argument["shouldDisplay"] as? Bool ?? true else { continue }
                let names = Set((argument["names"] as? [[String: Any]] ?? []).compactMap { n -> String? in
                    (n["kind"] as? String)?.hasPrefix("long") == true ? n["name"] as? String : nil
                })
                guard !names.isEmpty, names.isDisjoint(with: ["help", "version"]) else { continue }
                options.append(Option(names: names))
            }
            // A flag and its inversion (`--pdq`, `--no-pdq`) are one option, whichever is named.
            for (i, option) in options.enumerated() {
                guard let j = options.indices.first(where: { j in
                    j != i && option.names.contains { options[j].names.contains("no-" + $0) }
                }) else { continue }
                options[j].names.formUnion(option.names)
                options[i].names = []
            }
            result[name] = CommandOptions(options: options.filter { !$0.names.isEmpty })
        }
        return result
    }
}

/// The arguments of every run of the binary the suite made.
enum RunLog {
    static func read(_ url: URL) throws -> [[String]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String]
        }
    }
}

enum Coverage {
    /// `command --option` for each documented option no run passed, sorted.
    static func missing(readme: UsageLines, commands: [String: CommandOptions], runs: [[String]]) -> [String] {
        // Options passed, per command: `--name` and `--name=value`.
        var passed: [String: Set<String>] = [:]
        for run in runs {
            guard let command = run.first else { continue }
            for argument in run.dropFirst() where argument.hasPrefix("--") {
                passed[command, default: []].insert(String(argument.dropFirst(2).prefix { $0 != "=" }))
            }
        }
        var missing: [String] = []
        for (command, lines) in readme.commands {
            guard let real = commands[command] else { continue }
            for name in readme.options(of: command) {
                let names = real.option(named: name)?.names ?? [name]
                // Its own line: this command's runs. Through a group: any command taking the group.
                var takers: Set<String> = [command]
                if !lines.direct.contains(name) {
                    let viaGroups = readme.groups(of: command).filter { readme.options(ofGroup: $0).contains(name) }
                    takers = Set(readme.commands.keys.filter { !readme.groups(of: $0).isDisjoint(with: viaGroups) })
                }
                if !takers.contains(where: { !(passed[$0] ?? []).isDisjoint(with: names) }) {
                    missing.append("\(command) --\(name)")
                }
            }
        }
        return missing.sorted()
    }

    /// Documented options per command.
    static func counts(readme: UsageLines, commands: [String: CommandOptions]) -> [String: Int] {
        readme.commands.keys.reduce(into: [:]) { $0[$1] = readme.options(of: $1).count }
    }
}
