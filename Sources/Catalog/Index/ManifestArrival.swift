import Foundation

/// A manifest just put in `manifests/` for the catalog to read
/// (``PostCatalog/add(manifestsArriving:bytes:observer:)``), with the file as whoever put it
/// there opened it: its structure was scanned then, and is not scanned again.
package struct ManifestArrival: Sendable {
    package var name: String
    package var manifest: ManifestFile?

    package init(name: String, manifest: ManifestFile?) {
        self.name = name
        self.manifest = manifest
    }
}

/// Sees what each post of a run names as the catalog reads the run: `sync` records
/// a bucket's URLs in the local index from the catalog's own decode of each post,
/// rather than decoding a million posts a second time.
package protocol FetchedObjectsObserver: Sendable {
    /// A batch of the run's posts' objects, in file order, on the catalog's reading
    /// thread; a post whose objects did not read is left out.
    func read(_ objects: [FetchedObjects], ofRun name: String, header: ManifestFile.Header)
    /// Every post of the run was read and the catalog holds the run. Not called for
    /// a run the catalog could not read to its end.
    func finished(run name: String)
}
