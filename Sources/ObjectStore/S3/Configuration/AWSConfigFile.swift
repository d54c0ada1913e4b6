import Foundation

/// One shared AWS file (`~/.aws/config` or `~/.aws/credentials`), read the way the AWS
/// CLI reads it, so that a file that works with `aws s3 ls` works here unchanged.
///
/// What botocore (`botocore/configloader.py`: `raw_config_parse`, `build_profile_map`,
/// `_parse_nested`, over Python's `RawConfigParser`) does, and what is done here:
/// - Config file: `[default]` and `[profile NAME]` are profiles (`[profile "my name"]`
///   too); `[services NAME]` sections hold service-specific settings; `[sso-session …]`
///   and any other section (`[NAME]` without `profile `) are not profiles and are skipped.
///   Credentials file: `[NAME]` is profile NAME, with no `profile ` prefix.
/// - `key = value`, both trimmed; keys are case-insensitive (lowercased), profile and
///   section names are not (they are trimmed: `[ dev ]` is `dev`, where botocore would
///   keep the spaces). `[profile default]` is the same profile as `[default]`. Only `=`
///   separates (configparser also accepts `:`; no AWS document shows it, and a `:` in a
///   key line is more likely part of a URL).
/// - Whole-line comments start with `#` or `;`, indented or not.
/// - A key with an empty value followed by lines indented deeper is a sub-section
///   (`s3 =` then `  endpoint_url = http://…`); one level only, as botocore.
/// - Inline comments: botocore strips none (`RawConfigParser` without
///   `inline_comment_prefixes`; aws-cli issue #320), so `region = x # y` reaches it as
///   `x # y`, while other AWS SDKs (the Kotlin SDK's profile parser, for one) end a
///   value at ` #` or ` ;`.
///   Here, in the config file only, a `#` or `;` preceded by whitespace ends a value
///   (and a sub-section value) — except for `credential_process`, a shell command whose
///   own quoting decides what `#` means (`/bin/sh` drops an unquoted ` # …` anyway).
///   Credentials-file values are taken whole: a secret is never cut short.
///
/// Where botocore rejects the whole file (a line before any section, a line without
/// `=`, a duplicate section or key, bytes that are not UTF-8), this reader skips that
/// line instead, merges duplicates (the later key wins) and decodes leniently: a
/// malformed line never stops the rest of the file from being used, and never crashes.
struct AWSConfigFile: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case config, credentials
    }

    /// A setting: text, or the `k = v` lines of a sub-section.
    enum Value: Sendable, Equatable {
        case text(String)
        case section([String: String])
    }

    typealias Section = [String: Value]

    /// Files larger than this are refused: a config file is a few kilobytes, and a
    /// bigger one is a wrong path (a log, a disk image), not worth reading into memory.
    static let defaultLimit = 1 << 20

    let path: String
    let kind: Kind
    /// Profiles by name: `[default]`/`[profile NAME]` in the config file, `[NAME]` in
    /// the credentials file.
    private(set) var profiles: [String: Section] = [:]
    /// `[services NAME]` sections by NAME (config file only).
    private(set) var services: [String: Section] = [:]

    init(path: String, kind: Kind, profiles: [String: Section] = [:], services: [String: Section] = [:]) {
        self.path = path
        self.kind = kind
        self.profiles = profiles
        self.services = services
    }

    /// The text of `key` in `profile`; nil when absent, empty or a sub-section.
    func text(_ key: String, profile: String) -> String? {
        guard case let .text(value)? = profiles[profile]?[key], !value.isEmpty else { return nil }
        return value
    }

    /// `key` of sub-section `subsection` in the `[services NAME]` section.
    func service(_ name: String, _ subsection: String, _ key: String) -> String? {
        guard case let .section(values)? = services[name]?[subsection], let value = values[key], !value.isEmpty else {
            return nil
        }
        return value
    }

    // MARK: Reading

    /// The file at `path`; nil when there is no regular file there (botocore ignores
    /// a missing file, and a directory, alike).
    static func load(path: String, kind: Kind, limit: Int = defaultLimit) throws(AWSConfigurationError) -> AWSConfigFile? {
        guard let data = try read(path: path, limit: limit) else { return nil }
        return parse(String(decoding: data, as: UTF8.self), kind: kind, path: path)
    }

    /// The bytes of the regular file at `path` (symlinks followed: dotfile managers
    /// make ~/.aws/config one), nil when there is none; more than `limit` is an error.
    static func read(path: String, limit: Int) throws(AWSConfigurationError) -> Data? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved),
              attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        guard let handle = FileHandle(forReadingAtPath: resolved) else {
            throw .unreadableFile(path: path, reason: "permission denied")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            // One byte over the limit tells a file that is too large, without reading all of it.
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw .unreadableFile(path: path, reason: error.localizedDescription)
        }
        if data.count > limit { throw .fileTooLarge(path: path, limit: limit) }
        return data
    }

    /// Parses `text`; never fails (see the type's notes on malformed lines).
    static func parse(_ text: String, kind: Kind, path: String) -> AWSConfigFile {
        var file = AWSConfigFile(path: path, kind: kind)
        var target: Target?
        // The key whose value may continue on lines indented deeper, and its indentation.
        var open: (key: String, indent: Int, empty: Bool)?

        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        for rawLine in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let indent = rawLine.prefix(while: { $0 == " " || $0 == "\t" }).count
            let line = trimmed(rawLine)
            // Blank and comment lines neither end a sub-section nor belong to it (as configparser).
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }

            if let current = open, indent > current.indent, let target {
                // A continuation line: part of a sub-section when its key's value was empty.
                guard current.empty, let (key, value) = keyValue(line, kind: kind, parentKey: current.key) else {
                    // botocore would join it onto a non-empty value; it is dropped here.
                    continue
                }
                file.update(target) { section in
                    var values: [String: String] = [:]
                    if case let .section(existing)? = section[current.key] { values = existing }
                    values[key] = value
                    section[current.key] = .section(values)
                }
                continue
            }

            if line.hasPrefix("[") {
                open = nil
                // Text after the closing bracket is ignored, as configparser does.
                guard let close = line.firstIndex(of: "]") else {
                    // A broken header: its keys must not land in the section before it.
                    target = nil
                    continue
                }
                target = Target(header: trimmed(line[line.index(after: line.startIndex)..<close]), kind: kind)
                if let target { file.update(target) { _ in } }
                continue
            }

            guard let target, let (key, value) = keyValue(line, kind: kind, parentKey: nil) else {
                // A key before any section, under a skipped section, or a line without `=`.
                open = nil
                continue
            }
            file.update(target) { $0[key] = .text(value) }
            open = (key, indent, value.isEmpty)
        }
        return file
    }

    /// Where the keys that follow a section header go.
    private enum Target {
        case profile(String)
        case services(String)

        /// The profile or services section a header names, or nil for a section that is
        /// neither (`[sso-session x]`, `[preview]`, `[dev]` in the config file).
        init?(header: Substring, kind: Kind) {
            guard !header.isEmpty else { return nil }
            if kind == .credentials {
                self = .profile(String(header))
                return
            }
            if header == "default" {
                self = .profile("default")
            } else if let name = Self.name(header, after: "profile") {
                self = .profile(name)
            } else if let name = Self.name(header, after: "services") {
                self = .services(name)
            } else {
                return nil
            }
        }

        /// NAME in `WORD NAME` or `WORD "NA ME"`: one word after the keyword, as
        /// botocore's `shlex.split` into exactly two parts.
        private static func name(_ header: Substring, after word: String) -> String? {
            guard header.hasPrefix(word) else { return nil }
            let rest = header.dropFirst(word.count)
            guard let first = rest.first, first == " " || first == "\t" else { return nil }
            let name = trimmed(rest)
            if name.count >= 2, let quote = name.first, quote == "\"" || quote == "'", name.last == quote {
                let inner = name.dropFirst().dropLast()
                return inner.isEmpty || inner.contains(quote) ? nil : String(inner)
            }
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" }) else {
                return nil
            }
            return String(name)
        }
    }

    private mutating func update(_ target: Target, _ change: (inout Section) -> Void) {
        switch target {
        case let .profile(name): change(&profiles[name, default: [:]])
        case let .services(name): change(&services[name, default: [:]])
        }
    }

    /// `key = value` split at the first `=`, the key lowercased, the value without an
    /// inline comment where this file's kind strips them; nil when there is no key.
    private static func keyValue(_ line: Substring, kind: Kind, parentKey: String?) -> (String, String)? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let key = trimmed(line[..<equals]).lowercased()
        guard !key.isEmpty else { return nil }
        var value = line[line.index(after: equals)...]
        if kind == .config, (parentKey ?? key) != "credential_process" {
            value = withoutInlineComment(value)
        }
        return (key, String(trimmed(value)))
    }

    /// `value` up to a `#` or `;` that follows whitespace.
    private static func withoutInlineComment(_ value: Substring) -> Substring {
        var previous: Character?
        for index in value.indices {
            let character = value[index]
            if character == "#" || character == ";", previous == " " || previous == "\t" {
                return value[..<index]
            }
            previous = character
        }
        return value
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\u{0B}" || $0 == "\u{0C}" }
        guard let start = text.firstIndex(where: { !isBlank($0) }), let end = text.lastIndex(where: { !isBlank($0) }) else {
            return text[text.endIndex...]
        }
        return text[start...end]
    }
}
