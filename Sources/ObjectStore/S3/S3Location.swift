/// Where a cache lives in object storage: `s3://BUCKET[/PREFIX]`.
///
/// Checked once, here: a bucket name as S3 allows it (3-63 lowercase letters,
/// digits, `.` and `-`) and a prefix of safe key characters, so every object key
/// built below it is plain ASCII that needs no escaping to be signed and sent.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public var bucket: String
    /// Without leading or trailing `/`; empty for the bucket's root.
    public var prefix: String

    public init(bucket: String, prefix: String = "") throws(StoreError) {
        guard Self.validBucket(bucket) else {
            throw .invalidLocation("'\(bucket)' is not a bucket name (3-63 lowercase letters, digits, '.' and '-')")
        }
        let trimmed = prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        guard trimmed.utf8.count <= 512, trimmed.split(separator: "/").allSatisfy({ $0 != "." && $0 != ".." }),
              trimmed.utf8.allSatisfy(Self.keyByte)
        else { throw .invalidLocation("prefix '\(prefix)' may hold letters, digits, '/', '-', '_' and '.' only") }
        self.bucket = bucket
        self.prefix = trimmed
    }

    /// Parses `s3://bucket/prefix`.
    public init(url text: String) throws(StoreError) {
        guard text.hasPrefix("s3://") else { throw .invalidLocation("'\(text)' is not an s3://BUCKET[/PREFIX] URL") }
        let rest = text.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" }
        let prefix = rest.dropFirst(bucket.count).dropFirst()
        // One place to spell a prefix: `a//b` (or `//a`) would be read as `a/b`, silently
        // another set of keys than a tool that keeps the empty part would use.
        if prefix.hasPrefix("/") || prefix.contains("//") {
            let clean = prefix.split(separator: "/").joined(separator: "/")
            throw .invalidLocation("'\(text)': the prefix has an empty part ('//'); write s3://\(bucket)/\(clean)")
        }
        try self.init(bucket: String(bucket), prefix: String(prefix))
    }

    /// The object key of `path` (a cache-relative path such as `blobs/ab/cd/<hash>`) below the prefix.
    public func key(_ path: String) -> String { prefix.isEmpty ? path : "\(prefix)/\(path)" }

    /// The cache-relative path of `key`, or nil when it is not below the prefix.
    public func path(ofKey key: String) -> String? {
        if prefix.isEmpty { return key }
        guard key.hasPrefix(prefix + "/") else { return nil }
        return String(key.dropFirst(prefix.count + 1))
    }

    public var description: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }

    static func validBucket(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (97...122).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        } && name.first != "." && name.first != "-" && name.last != "." && name.last != "-"
    }

    /// Bytes allowed in keys TweetCache writes: no escaping needed anywhere.
    static func keyByte(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
            || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }
}
