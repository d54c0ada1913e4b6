#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Uninitialised memory for pyramid levels, freed when the owner goes away.
///
/// `malloc` rather than `[UInt8]` so that an allocation failure becomes
/// ``ImagingError/outOfMemory`` instead of a trap, and so that nothing is
/// zero-filled only to be overwritten by the reducer.
final class LevelBuffer {
    let pointer: UnsafeMutablePointer<UInt8>
    let capacity: Int

    init(capacity: Int) throws(ImagingError) {
        guard capacity > 0, let raw = malloc(capacity) else { throw .outOfMemory }
        pointer = raw.bindMemory(to: UInt8.self, capacity: capacity)
        self.capacity = capacity
    }

    /// Room for an RGB (or, with `channels` 4, RGBA) image of the given size.
    convenience init(width: Int, height: Int, channels: Int = 3) throws(ImagingError) {
        let (row, rowOverflow) = width.multipliedReportingOverflow(by: channels)
        let (count, overflow) = row.multipliedReportingOverflow(by: height)
        guard !rowOverflow, !overflow else { throw .outOfMemory }
        try self.init(capacity: count)
    }

    deinit { free(pointer) }
}
