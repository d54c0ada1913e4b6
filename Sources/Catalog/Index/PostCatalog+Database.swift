import Foundation
import BlobStore
internal import CTweetCache
internal import GRDB
internal import Synchronization
#if canImport(Glibc)
internal import Glibc
#endif

extension PostCatalog {
    // MARK: - Database access

    func write<T>(_ operation: String, _ body: (Database) throws -> T) throws(CatalogError) -> T {
        try checkJournaled()
        do {
            return try pool.write(body)
        } catch {
            throw .database(operation: operation, message: String(describing: error))
        }
    }

    func writeWithoutTransaction<T>(_ operation: String, _ body: (Database) throws -> T) throws(CatalogError) -> T {
        try checkJournaled()
        do {
            return try pool.writeWithoutTransaction(body)
        } catch {
            throw .database(operation: operation, message: String(describing: error))
        }
    }

    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(CatalogError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw .database(operation: operation, message: String(describing: error))
        }
    }

    /// An exclusive advisory lock on `<database>.lock`: one process ingests at a time.
    static func lock(_ databasePath: String) throws(CatalogError) -> Int32 {
        do { return try FileSystem.lockExclusively(databasePath + ".lock") } catch {
            throw .open(path: databasePath + ".lock", message: error.description)
        }
    }

    static func unlock(_ fd: Int32) { FileSystem.unlock(fd) }
}
