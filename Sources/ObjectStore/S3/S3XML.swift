import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the two XML documents S3 answers with that TweetCache needs, with
/// Foundation's `XMLParser`: a ListObjectsV2 page, and an error's code and message.
enum S3XML {
    struct Listing: Sendable {
        var objects: [StoredObject] = []
        var nextToken: String?
        var truncated = false
    }

    static func listing(_ bytes: [UInt8]) throws(StoreError) -> Listing {
        let reader = ElementReader()
        try reader.parse(bytes)
        // Every listing names its bucket: a page that parses as XML but is not one
        // (an HTML index from an endpoint that is not S3) is not an empty bucket.
        guard reader.values.keys.contains(where: { $0.hasPrefix("ListBucketResult/") }) else {
            throw .malformed("the endpoint answered a listing with something that is not an S3 listing (is it an S3 endpoint?)")
        }
        var listing = Listing()
        listing.truncated = reader.values["ListBucketResult/IsTruncated"]?.first == "true"
        listing.nextToken = reader.values["ListBucketResult/NextContinuationToken"]?.first
        listing.objects = reader.records.map { record in
            StoredObject(key: record["Key"] ?? "", size: Int(record["Size"] ?? "") ?? 0,
                     etag: (record["ETag"] ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
                     lastModified: record["LastModified"].flatMap(timestamp))
        }.filter { !$0.key.isEmpty }
        return listing
    }

    /// `2026-11-25T05:00:00.000Z`, with or without the fraction.
    static func timestamp(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// `<Error><Code>…</Code><Message>…</Message></Error>`; nil when the body is not one.
    static func error(_ bytes: [UInt8]) -> (code: String, message: String)? {
        let reader = ElementReader()
        guard (try? reader.parse(bytes)) != nil, let code = reader.values["Error/Code"]?.first else { return nil }
        return (code, reader.values["Error/Message"]?.first ?? "")
    }

    /// `<InitiateMultipartUploadResult><UploadId>`.
    static func uploadID(_ bytes: [UInt8]) throws(StoreError) -> String {
        let reader = ElementReader()
        try reader.parse(bytes)
        guard let id = reader.values["InitiateMultipartUploadResult/UploadId"]?.first, !id.isEmpty else {
            throw .malformed("no UploadId in the answer to CreateMultipartUpload")
        }
        return id
    }

    /// Collects the text of every element by its path (`A/B/C`), and each
    /// `ListBucketResult/Contents` element's children as one record.
    private final class ElementReader: NSObject, XMLParserDelegate {
        var values: [String: [String]] = [:]
        var records: [[String: String]] = []
        private var path: [String] = []
        private var text = ""
        private var record: [String: String]?

        func parse(_ bytes: [UInt8]) throws(StoreError) {
            guard bytes.count <= 64 << 20 else { throw .malformed("an XML answer over 64 MB") }
            let parser = XMLParser(data: Data(bytes))
            parser.shouldResolveExternalEntities = false
            parser.delegate = self
            guard parser.parse() else { throw .malformed(Self.notXML(bytes, parser.parserError)) }
        }

        /// What an answer that is not XML is, in words a person can act on: an endpoint
        /// that is not S3 typically answers an HTML page, which the parser only calls
        /// "error 68".
        static func notXML(_ bytes: [UInt8], _ error: (any Error)?) -> String {
            let head = String(decoding: bytes.prefix(256), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if head.hasPrefix("<!doctype html") || head.hasPrefix("<html") {
                return "the endpoint answered with an HTML page, not S3's XML (is it an S3 endpoint?)"
            }
            if bytes.isEmpty { return "the endpoint answered with an empty body where S3 sends XML (is it an S3 endpoint?)" }
            return "the endpoint's answer is not XML (\(error.map { "\($0.localizedDescription)" } ?? "unreadable")); is it an S3 endpoint?"
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            path.append(name)
            text = ""
            if path == ["ListBucketResult", "Contents"] { record = [:] }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if path == ["ListBucketResult", "Contents"], let record {
                records.append(record)
                self.record = nil
            } else if path.count == 3, path.prefix(2) == ["ListBucketResult", "Contents"] {
                record?[name] = text
            } else {
                values[path.joined(separator: "/"), default: []].append(text)
            }
            path.removeLast()
            text = ""
        }
    }
}
