import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the XML documents S3 answers with that TweetCache needs, with Foundation's
/// `XMLParser`: a ListObjectsV2 page, a ListMultipartUploads page, a new upload's
/// ID, and an error's code and message.
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
        let quotes = CharacterSet(charactersIn: "\"")
        listing.objects = reader.records.compactMap { (record: [String: String]) -> StoredObject? in
            let key: String = record["Key"] ?? ""
            guard !key.isEmpty else { return nil }
            let size: Int = record["Size"].flatMap { Int($0) } ?? 0
            let etag: String = (record["ETag"] ?? "").trimmingCharacters(in: quotes)
            return StoredObject(key: key, size: size, etag: etag, lastModified: record["LastModified"].flatMap(timestamp))
        }
        return listing
    }

    struct Uploads: Sendable {
        var uploads: [UnfinishedUpload] = []
        var truncated = false
        var nextKeyMarker: String?
        var nextUploadIDMarker: String?
    }

    /// A ListMultipartUploads page: keys are the bucket's (the caller maps them to paths).
    static func uploads(_ bytes: [UInt8]) throws(StoreError) -> Uploads {
        let reader = ElementReader(recordPath: ["ListMultipartUploadsResult", "Upload"])
        try reader.parse(bytes)
        guard reader.values.keys.contains(where: { $0.hasPrefix("ListMultipartUploadsResult/") }) || !reader.records.isEmpty else {
            throw .malformed("the endpoint answered a list of uploads with something that is not one (is it an S3 endpoint?)")
        }
        var page = Uploads()
        page.truncated = reader.values["ListMultipartUploadsResult/IsTruncated"]?.first == "true"
        page.nextKeyMarker = reader.values["ListMultipartUploadsResult/NextKeyMarker"]?.first
        page.nextUploadIDMarker = reader.values["ListMultipartUploadsResult/NextUploadIdMarker"]?.first
        page.uploads = reader.records.compactMap { record in
            guard let key = record["Key"], let id = record["UploadId"], !key.isEmpty, !id.isEmpty else { return nil }
            return UnfinishedUpload(key: key, id: id, initiated: record["Initiated"].flatMap(timestamp))
        }
        return page
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
        /// The element each of whose children's text is one record.
        private let recordPath: [String]

        init(recordPath: [String] = ["ListBucketResult", "Contents"]) { self.recordPath = recordPath }
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
            if path == recordPath { record = [:] }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if path == recordPath, let record {
                records.append(record)
                self.record = nil
            } else if path.count == recordPath.count + 1, Array(path.prefix(recordPath.count)) == recordPath {
                record?[name] = text
            } else {
                values[path.joined(separator: "/"), default: []].append(text)
            }
            path.removeLast()
            text = ""
        }
    }
}
