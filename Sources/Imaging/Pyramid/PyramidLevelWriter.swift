internal import Dispatch

/// Encodes and writes every tile of one level, spread over threads.
///
/// Each of n threads takes every n-th tile in row-major order (so a one-row
/// panorama level keeps every core busy too), keeps one ``TileEncoder`` (and
/// its scratch buffer) for all of them, and counts what it wrote; nothing is
/// shared between threads but the read-only level pixels.
struct PyramidLevelWriter: Sendable {
    let sinks: [any TileSink]
    let quality: Int
    var format: PyramidPack.TileFormat = .jpeg
    let workers: Int

    /// Files and bytes written, per sink (index into ``sinks``).
    struct Tally: Sendable {
        var files: [Int]
        var bytes: [Int]
        var error: ImagingError?

        init(sinks: Int) {
            files = Array(repeating: 0, count: sinks)
            bytes = Array(repeating: 0, count: sinks)
        }

        mutating func add(_ other: Tally) {
            for sink in files.indices {
                files[sink] += other.files[sink]
                bytes[sink] += other.bytes[sink]
            }
        }
    }

    /// Writes `level`'s tiles from its pixels (`channels` 3 or 4, rows `stride` bytes apart).
    func write(
        level: PyramidLevel, pixels: UnsafePointer<UInt8>, stride: Int, channels: Int
    ) throws(ImagingError) -> Tally {
        let threads = max(1, min(workers, level.tileCount))
        var tallies = [Tally](repeating: Tally(sinks: sinks.count), count: threads)
        tallies.withUnsafeMutableBufferPointer { out in
            let shared = Shared(pixels: pixels, tallies: out.baseAddress!)
            if threads == 1 {
                out[0] = writeTiles(0, of: 1, level: level, pixels: pixels, stride: stride, channels: channels)
            } else {
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    shared.tallies[thread] = writeTiles(
                        thread, of: threads, level: level, pixels: shared.pixels, stride: stride, channels: channels)
                }
            }
        }
        var total = Tally(sinks: sinks.count)
        for tally in tallies {
            if let error = tally.error { throw error }
            total.add(tally)
        }
        return total
    }

    /// What the threads of one level share: the level's pixels, only read,
    /// and one tally slot per thread, each written by its own thread only.
    private struct Shared: @unchecked Sendable {
        let pixels: UnsafePointer<UInt8>
        let tallies: UnsafeMutablePointer<Tally>
    }

    /// One rectangle to encode and every file (and the sink it belongs to) that receives it.
    private struct Job {
        var rect: TileRect
        var files: [(path: String, sink: Int)]
        var slots: [(slot: Int, sink: Int)] = []
    }

    /// Tiles `first`, `first + step`, ... of the level in row-major order; stops at the first failure.
    private func writeTiles(
        _ first: Int, of step: Int, level: PyramidLevel, pixels: UnsafePointer<UInt8>, stride: Int, channels: Int
    ) -> Tally {
        var encoder = TileEncoder(quality: quality, format: format)
        var tally = Tally(sinks: sinks.count)
        do throws(ImagingError) {
            for index in Swift.stride(from: first, to: level.tileCount, by: step) {
                let (row, column) = index.quotientAndRemainder(dividingBy: level.columns)
                for job in jobs(level: level, column: column, row: row) {
                    let tile = try encoder.encode(pixels, stride: stride, channels: channels, rect: job.rect)
                    for file in job.files {
                        try TileFiles.write(tile, to: file.path)
                        tally.files[file.sink] += 1
                        tally.bytes[file.sink] += tile.count
                    }
                    for slot in job.slots {
                        (sinks[slot.sink] as? PackSink)?.store(tile, at: slot.slot)
                        tally.files[slot.sink] += 1
                        tally.bytes[slot.sink] += tile.count
                    }
                }
            }
        } catch {
            tally.error = error
        }
        return tally
    }

    /// Every sink's files for one grid cell, merged per distinct rectangle so
    /// identical pixels are encoded once.
    private func jobs(level: PyramidLevel, column: Int, row: Int) -> [Job] {
        var jobs: [Job] = []
        for (sink, writer) in sinks.enumerated() {
            guard let target = writer.target(level: level, column: column, row: row) else { continue }
            let files = target.paths.map { (path: $0, sink: sink) }
            let slots = target.packSlot.map { [(slot: $0, sink: sink)] } ?? []
            if let index = jobs.firstIndex(where: { $0.rect == target.rect }) {
                jobs[index].files += files
                jobs[index].slots += slots
            } else {
                jobs.append(Job(rect: target.rect, files: files, slots: slots))
            }
        }
        return jobs
    }
}
