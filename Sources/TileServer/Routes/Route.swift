import Catalog
import BlobStore
import Imaging
import CacheCore

/// What a request path asks for, after every part of it has been checked.
///
/// Paths are parsed here, once, into typed values (a ``BlobHash``, numbers, known
/// names), so no handler ever builds a file path from text a client sent: the
/// only way to name a file is through a hash and integers.
package enum Route: Sendable, Equatable {
    case viewerIndex
    case viewerZoom(BlobHash)
    case viewerAsset(String)
    case apiTweets
    case apiHistory
    /// `GET`: the live search's status (a long poll with `?after=`); `POST`: start one.
    case apiSearch
    /// `/api/duplicates/<sha256>`: the cached photos that look like this one (PDQ).
    case apiDuplicates(BlobHash)
    case dziDescriptor(BlobHash)
    /// The format is the extension asked for; the responder answers only the one
    /// the image's descriptor names.
    case dziTile(BlobHash, level: Int, column: Int, row: Int, format: PyramidPack.TileFormat)
    case iiifBase(BlobHash)
    case iiifInfo(BlobHash)
    case iiifImage(BlobHash, region: String, size: String, rotation: String, qualityFormat: String)
    case thumbnail(BlobHash, size: Int)
    case blob(BlobHash)
    case manifestList
    case manifest(String)
    /// IIIF Presentation 3: the Collection, and the Manifests of searches, tags, users and runs.
    case presentation(PresentationTarget)
    case healthz
    case metrics
    /// `GET`: the operator's sign-in page; `POST`: signs in with the token.
    case signIn
    /// `POST`: ends the operator's session.
    case signOut
    /// What the page may offer this visitor: live search and history, a sign-in, or neither.
    case apiOperator

    /// The label metrics use: the route's kind, never the client's text.
    var metricLabel: String {
        switch self {
        case .viewerIndex, .viewerZoom, .viewerAsset: "viewer"
        case .apiTweets, .apiHistory, .apiSearch, .apiDuplicates: "api"
        case .dziDescriptor: "dzi"
        case .dziTile: "dzi_tile"
        case .iiifBase, .iiifInfo: "iiif_info"
        case .iiifImage: "iiif_image"
        case .thumbnail: "thumb"
        case .blob: "blob"
        case .manifestList, .manifest: "manifest"
        case .presentation: "iiif_presentation"
        case .healthz: "healthz"
        case .metrics: "metrics"
        case .signIn, .signOut, .apiOperator: "operator"
        }
    }

    /// Whether it spends or reveals the operator's things: live searches on their API
    /// token, the search history, the metrics, the run manifests (with their paths).
    /// Those are the operator's alone on a server others reach (``OperatorAccess``).
    var needsOperator: Bool {
        switch self {
        case .apiSearch, .apiHistory, .metrics, .manifestList, .manifest: true
        default: false
        }
    }

    /// Whether other sites' pages may read the answer (`Access-Control-Allow-Origin: *`):
    /// the public media a IIIF viewer elsewhere loads (images, info.json, Presentation,
    /// Deep Zoom, thumbnails, originals, the zoom page). The app's JSON, the manifests,
    /// the history and the metrics are this server's own pages' alone: a site the
    /// operator visits must not read the archive, its searches or its paths from here.
    var allowsCrossOrigin: Bool {
        switch self {
        case .viewerZoom, .dziDescriptor, .dziTile, .iiifBase, .iiifInfo, .iiifImage, .thumbnail, .blob, .presentation: true
        case .viewerIndex, .viewerAsset, .apiTweets, .apiHistory, .apiSearch, .apiDuplicates, .manifestList, .manifest,
             .healthz, .metrics, .signIn, .signOut, .apiOperator: false
        }
    }
}

/// Why a path names nothing servable.
package enum RouteError: Error, Equatable {
    /// Well formed, but there is no such endpoint (404).
    case notFound
    /// Malformed: a bad identifier, number or encoding (400).
    case badRequest(String)
}

extension Route {
    /// Parses the raw (still percent-encoded) path of a request.
    ///
    /// Segments are split on `/` before decoding, and a decoded segment may not
    /// contain `/`, `\`, NUL or be `.`/`..`: an encoded slash or dot-segment can't
    /// reach another directory because no segment is ever used as a path.
    package static func parse(path raw: String) throws(RouteError) -> Route {
        guard raw.hasPrefix("/") else { throw .badRequest("path must start with /") }
        guard raw.utf8.count <= 2048 else { throw .badRequest("path too long") }
        var segments: [String] = []
        for piece in raw.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            let decoded = try decodeSegment(piece)
            if decoded.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 })
                || decoded == "." || decoded == ".." {
                throw .badRequest("path segment not allowed")
            }
            segments.append(decoded)
        }
        // "/" splits into one empty segment; a trailing slash elsewhere is tolerated.
        if segments.count > 1, segments.last == "" { segments.removeLast() }

        switch segments.first ?? "" {
        case "":
            guard segments.count == 1 else { throw .notFound }
            return .viewerIndex
        case "view":
            guard segments.count == 2 else { throw .notFound }
            return .viewerZoom(try hash(segments[1]))
        case "static":
            guard segments.count == 2 else { throw .notFound }
            return .viewerAsset(segments[1])
        case "api":
            switch segments {
            case ["api", "tweets"]: return .apiTweets
            case ["api", "history"]: return .apiHistory
            case ["api", "search"]: return .apiSearch
            case ["api", "operator"]: return .apiOperator
            case _ where segments.count == 3 && segments[1] == "duplicates": return .apiDuplicates(try hash(segments[2]))
            default: throw .notFound
            }
        case "healthz":
            guard segments.count == 1 else { throw .notFound }
            return .healthz
        case "metrics":
            guard segments.count == 1 else { throw .notFound }
            return .metrics
        case "signin":
            guard segments.count == 1 else { throw .notFound }
            return .signIn
        case "signout":
            guard segments.count == 1 else { throw .notFound }
            return .signOut
        case "dzi":
            return try parseDeepZoom(Array(segments.dropFirst()))
        case "iiif":
            return try parseIIIF(Array(segments.dropFirst()))
        case "thumb":
            guard segments.count == 3 else { throw .notFound }
            guard let size = number(segments[2]) else { throw .badRequest("thumbnail size must be a number") }
            return .thumbnail(try hash(segments[1]), size: size)
        case "blob":
            guard segments.count == 2 else { throw .notFound }
            return .blob(try hash(segments[1]))
        case "manifests":
            if segments.count == 1 { return .manifestList }
            guard segments.count == 2 else { throw .notFound }
            let name = segments[1]
            guard CacheKey.isManifestName(name), name.utf8.count <= 200,
                  name.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") })
            else { throw .badRequest("bad manifest name") }
            return .manifest(name)
        default:
            throw .notFound
        }
    }

    /// Percent-decodes one segment; most segments have no `%` and are taken as
    /// they are (this runs on every request, so it stays off Foundation).
    static func decodeSegment(_ piece: Substring.UTF8View.SubSequence) throws(RouteError) -> String {
        guard piece.contains(UInt8(ascii: "%")) else { return String(Substring(piece)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(piece.count)
        var index = piece.startIndex
        while index < piece.endIndex {
            let byte = piece[index]
            if byte == UInt8(ascii: "%") {
                let first = piece.index(after: index)
                guard first < piece.endIndex, piece.index(after: first) < piece.endIndex,
                      let high = hexValue(piece[first]), let low = hexValue(piece[piece.index(after: first)]) else {
                    throw .badRequest("bad percent-encoding")
                }
                bytes.append(high << 4 | low)
                index = piece.index(first, offsetBy: 2)
            } else {
                bytes.append(byte)
                index = piece.index(after: index)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .badRequest("bad percent-encoding") }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `<hash>.dzi` or `<hash>_files/<level>/<column>_<row>.jpg` (`.webp`, or `.png` in older packs, for images with alpha).
    private static func parseDeepZoom(_ rest: [String]) throws(RouteError) -> Route {
        if rest.count == 1, rest[0].hasSuffix(".dzi") {
            return .dziDescriptor(try hash(String(rest[0].dropLast(4))))
        }
        guard rest.count == 3, rest[0].hasSuffix("_files") else { throw .notFound }
        let id = try hash(String(rest[0].dropLast(6)))
        guard let level = number(rest[1]) else { throw .badRequest("tile level must be a number") }
        guard let dot = rest[2].lastIndex(of: "."),
              let format = [PyramidPack.TileFormat.jpeg, .png, .webp].first(where: {
                  rest[2][rest[2].index(after: dot)...] == $0.fileExtension
              })
        else { throw .notFound }
        let name = rest[2][..<dot].split(separator: "_", omittingEmptySubsequences: false)
        guard name.count == 2, let column = number(String(name[0])), let row = number(String(name[1])) else {
            throw .badRequest("tile name must be <column>_<row>.jpg, .png or .webp")
        }
        return .dziTile(id, level: level, column: column, row: row, format: format)
    }

    /// `3/<id>`, `3/<id>/info.json`, `3/<id>/<region>/<size>/<rotation>/<quality>.<format>`.
    /// An identifier that is not a hash is an unknown image (404), as the IIIF spec has it.
    private static func parseIIIF(_ rest: [String]) throws(RouteError) -> Route {
        if rest.first == "presentation" {
            guard let target = PresentationTarget.parse(Array(rest.dropFirst())) else { throw .notFound }
            return .presentation(target)
        }
        guard rest.first == "3", rest.count >= 2 else { throw .notFound }
        guard let id = BlobHash.strict(rest[1]) else { throw .notFound }
        switch rest.count {
        case 2: return .iiifBase(id)
        case 3:
            guard rest[2] == "info.json" else { throw .badRequest("expected info.json or an image request") }
            return .iiifInfo(id)
        case 6: return .iiifImage(id, region: rest[2], size: rest[3], rotation: rest[4], qualityFormat: rest[5])
        default: throw .badRequest("an IIIF image request has region/size/rotation/quality.format")
        }
    }

    private static func hash(_ text: String) throws(RouteError) -> BlobHash {
        guard let hash = BlobHash.strict(text) else {
            throw .badRequest("identifier must be a SHA-256 in lowercase hex (64 characters)")
        }
        return hash
    }

    /// A small non-negative decimal, digits only (no sign, no spaces, at most 7 digits).
    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 7, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
    }
}

extension BlobHash {
    /// Only the canonical spelling: 64 lowercase hex digits (which is all
    /// `BlobHash(hex:)` accepts), so caches and ETags see one name per image.
    static func strict(_ text: String) -> BlobHash? {
        text.utf8.count == 64 ? BlobHash(hex: text) : nil
    }
}
