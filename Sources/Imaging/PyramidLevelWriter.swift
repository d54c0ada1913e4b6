internal import Dispatch

/// Encodes and writes every tile of one level, rows of tiles spread over threads.
///
/// Each thread takes every n-th row of tiles, keeps one ``TileEncoder`` (and
/// its scratch buffer) for all of them, and counts what it wrote; nothing is
/// shared between threads but the read-only level pixels.
struct PyramidLevelWriter: Sendable {
    let sinks: [any TileSink]
    let quality: Int
    let workers: Int

    /// Files and bytes written so far.
    struct Tally: Sendable {
        var files = 0
        var bytes = 0
        var error: ImagingError?
    }

    /// Writes `level`'s tiles from its pixels (`channels` 3 or 4, rows `stride` bytes apart).
    func write(
        level: PyramidLevel, pixels: UnsafePointer<UInt8>, stride: Int, channels: Int
    ) throws(ImagingError) -> Tally {
        let threads = max(1, min(workers, level.rows))
        var tallies = [Tally](repeating: Tally(), count: threads)
        tallies.withUnsafeMutableBufferPointer { out in
            let shared = Shared(pixels: pixels, tallies: out.baseAddress!)
            if threads == 1 {
                out[0] = writeRows(0, of: 1, level: level, pixels: pixels, stride: stride, channels: channels)
            } else {
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    shared.tallies[thread] = writeRows(
                        thread, of: threads, level: level, pixels: shared.pixels, stride: stride, channels: channels)
                }
            }
        }
        var total = Tally()
        for tally in tallies {
            if let error = tally.error { throw error }
            total.files += tally.files
            total.bytes += tally.bytes
        }
        return total
    }

    /// What the threads of one level share: the level's pixels, only read,
    /// and one tally slot per thread, each written by its own thread only.
    private struct Shared: @unchecked Sendable {
        let pixels: UnsafePointer<UInt8>
        let tallies: UnsafeMutablePointer<Tally>
    }

    /// Rows `first`, `first + step`, ... of the level; stops at the first failure.
    private func writeRows(
        _ first: Int, of step: Int, level: PyramidLevel, pixels: UnsafePointer<UInt8>, stride: Int, channels: Int
    ) -> Tally {
        var encoder = TileEncoder(quality: quality)
        var tally = Tally()
        do throws(ImagingError) {
            for row in Swift.stride(from: first, to: level.rows, by: step) {
                for column in 0..<level.columns {
                    for target in targets(level: level, column: column, row: row) {
                        let jpeg = try encoder.encode(pixels, stride: stride, channels: channels, rect: target.rect)
                        for path in target.paths {
                            try TileFiles.write(jpeg, to: path)
                            tally.files += 1
                            tally.bytes += jpeg.count
                        }
                    }
                }
            }
        } catch {
            tally.error = error
        }
        return tally
    }

    /// Every sink's file names for one grid cell, merged per distinct rectangle
    /// so identical pixels are encoded once.
    private func targets(level: PyramidLevel, column: Int, row: Int) -> [TileTarget] {
        var merged: [TileTarget] = []
        for sink in sinks {
            guard let target = sink.target(level: level, column: column, row: row) else { continue }
            if let index = merged.firstIndex(where: { $0.rect == target.rect }) {
                merged[index].paths += target.paths
            } else {
                merged.append(target)
            }
        }
        return merged
    }
}
