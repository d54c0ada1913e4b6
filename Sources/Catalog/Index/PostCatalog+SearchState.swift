import Foundation
internal import GRDB
import TweetModel

extension PostCatalog {
    /// What the collection holds of a search (``Manifest/SearchRecord/key``): the
    /// newest post among the sources of its runs whose pages reached what was held
    /// before them; nil when it holds nothing of it yet.
    ///
    /// Read from the manifests (the catalog is their index), so it is rebuilt with
    /// the catalog, moves on only once a run's manifest is written, and is the same
    /// on every machine that synced the runs.
    public func searchBoundary(key: String) throws(CatalogError) -> (newestID: String?, newestAt: Date?)? {
        try read("read a search's state") { db in
            var newestID: DecimalID?
            var newestAt: Double?
            var found = false
            for row in try Row.fetchAll(db, sql: "SELECT newest_id, newest_at FROM searches WHERE search = ? AND reached = 1",
                                        arguments: [key]) {
                found = true
                if let text: String = row["newest_id"], let id = DecimalID(text), newestID.map({ id > $0 }) ?? true {
                    newestID = id
                }
                if let at: Double = row["newest_at"], newestAt.map({ at > $0 }) ?? true { newestAt = at }
            }
            guard found, newestID != nil || newestAt != nil else { return nil }
            return (newestID?.digits, newestAt.map { Date(timeIntervalSince1970: $0) })
        }
    }
}
