import Catalog
public import Foundation
import TweetModel

/// The result file of an X batch compliance job (`POST /2/compliance/jobs`, type
/// `tweets`), as its download URL serves it: JSON lines, one per post that changed,
/// `{"id": "…", "action": "delete", "created_at": "…", "redacted_at": "…", "reason": "deleted"}`.
///
/// Every `delete` (reasons deleted, suspended, protected, deactivated) becomes a post
/// to forget, with its reason. `scrub_geo` asks to drop a post's place, which the
/// cache never keeps: counted, nothing to do. A line that is not one of these is a
/// problem for that line; the others still count.
public struct ComplianceFile: Sendable {
    public var requests: [Forgetter.Request] = []
    /// Lines read and left alone: `scrub_geo`.
    public var unchanged = 0
    public var problems: [String] = []

    /// Why the file could not be read at all.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Compliance files of millions of lines are read mapped, a line at a time.
    public init(path: String) throws(Failure) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw Failure(description: "cannot read \(path): \((error as NSError).localizedDescription)")
        }
        self.init(data: data, name: path)
    }

    public init(data: Data, name: String) {
        struct Line: Decodable {
            /// X writes ids as strings; a number is read too.
            var id: FlexibleID?
            var action: String?
            var reason: String?
        }
        let decoder = JSONDecoder()
        var number = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            guard line.contains(where: { !JSONStructureScanner.isSpace($0) }) else { continue }
            let at = "\(name):\(number)"
            guard line.count <= 65_536, let entry = try? decoder.decode(Line.self, from: Data(line)) else {
                problems.append("\(at): not a compliance result (JSON with id and action)")
                continue
            }
            guard let id = entry.id?.string, !id.isEmpty, id.utf8.count <= 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                problems.append("\(at): no post id (X ids are digits)")
                continue
            }
            switch entry.action {
            case "delete":
                let reason = entry.reason.flatMap { $0.isEmpty || $0.utf8.count > 64 ? nil : $0 } ?? "deleted"
                requests.append(Forgetter.Request(key: PostIdentity(network: .x, id: id), reason: reason))
            case "scrub_geo":
                unchanged += 1
            default:
                problems.append("\(at): action \((entry.action ?? "none").prefix(40).debugDescription) is not delete or scrub_geo")
            }
        }
    }
}
