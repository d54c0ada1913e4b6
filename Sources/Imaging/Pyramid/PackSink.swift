/// Collects the tiles of one pyramid in memory, in pack order, so the builder
/// can hand back a whole ``PyramidPack`` to publish with one atomic write.
///
/// Each slot is written once, by whichever level-writer thread encoded that
/// tile, and read only after every thread has finished: the slots need no lock.
final class PackSink: TileSink, @unchecked Sendable {
    let geometry: PyramidGeometry
    let quality: Int
    let format: PyramidPack.TileFormat
    private let starts: [Int]
    private let slots: UnsafeMutableBufferPointer<[UInt8]>

    init(geometry: PyramidGeometry, quality: Int, format: PyramidPack.TileFormat = .jpeg) {
        self.geometry = geometry
        self.quality = quality
        self.format = format
        starts = PyramidPack.levelStarts(geometry)
        slots = .allocate(capacity: starts.last ?? 0)
        slots.initialize(repeating: [])
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    func target(level: PyramidLevel, column: Int, row: Int) -> TileTarget? {
        guard let rect = geometry.tileRect(level: level.index, column: column, row: row) else { return nil }
        return TileTarget(rect: rect, paths: [], packSlot: starts[level.index] + row * level.columns + column)
    }

    func store(_ tile: [UInt8], at slot: Int) { slots[slot] = tile }

    /// Nothing to write: the caller publishes ``pack(source:)``.
    func writeDescriptor() throws(ImagingError) -> Int { 0 }

    /// The finished pack.
    func pack(source: [UInt8]?) throws(ImagingError) -> [UInt8] {
        do {
            return try PyramidPack.assemble(geometry: geometry, format: format, quality: quality, source: source,
                                             tiles: Array(slots))
        } catch {
            throw .encodeFailed("cannot assemble the pyramid pack: \(error)")
        }
    }
}
