/// One resize cut into tiles (a band of output rows by a strip of output
/// columns) that run independently, on any thread, in any order.
///
/// Each tile filters its source rows horizontally into a small ring of float
/// rows, then combines ring rows vertically into each output row, so memory
/// stays at a few rows per thread whatever the image size and every source row
/// is converted and filtered once per tile. Pixels are `SIMD4<Float>`: RGB
/// (plus alpha, or 1 when opaque), decoded through a lookup table and
/// premultiplied, so one vector multiply-add handles a whole pixel.
///
/// Holds raw pointers into buffers the caller keeps alive for the duration of
/// ``run(tile:)``; tiles write disjoint output bytes, hence `@unchecked Sendable`.
struct ResampleJob: @unchecked Sendable {
    let source: UnsafePointer<UInt8>
    let sourceWidth: Int
    let channels: Int
    let destination: UnsafeMutablePointer<UInt8>
    let width: Int
    let xTaps: FilterTaps
    let yTaps: FilterTaps
    let tables: TransferTables
    let bands: [Range<Int>]
    let strips: [Range<Int>]

    var tileCount: Int { bands.count * strips.count }

    /// Produces the output pixels of tile `tile` (`0..<tileCount`).
    func run(tile: Int) {
        let band = bands[tile / strips.count]
        let strip = strips[tile % strips.count]
        tables.decode.withUnsafeBufferPointer { decode in
            tables.encode.withUnsafeBufferPointer { encode in
                guard let decode = decode.baseAddress, let encode = encode.baseAddress else { return }
                run(band: band, strip: strip, decode: decode, encode: encode)
            }
        }
    }

    private func run(band: Range<Int>, strip: Range<Int>, decode: UnsafePointer<Float>, encode: UnsafePointer<UInt8>) {
        let stripWidth = strip.count
        let spanStart = xTaps.sourceStart(of: strip)
        let span = xTaps.sourceEnd(of: strip) - spanStart
        let ringRows = yTaps.maxCount

        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: span)
        let ring = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: ringRows * stripWidth)
        let accumulator = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: stripWidth)
        // Which source row each ring slot holds (-1: none yet).
        let slotRow = UnsafeMutablePointer<Int>.allocate(capacity: ringRows)
        slotRow.initialize(repeating: -1, count: ringRows)
        defer {
            row.deallocate()
            ring.deallocate()
            accumulator.deallocate()
            slotRow.deallocate()
        }

        let yStarts = yTaps.starts.baseAddress!
        let yCounts = yTaps.counts.baseAddress!
        let yWeights = yTaps.weights.baseAddress!
        let yStride = yTaps.stride

        for y in band {
            let first = yStarts[y]
            let count = yCounts[y]
            // A window is at most `ringRows` consecutive rows, so its rows
            // occupy distinct slots; a row is filtered again only if evicted.
            for r in first..<(first + count) where slotRow[r % ringRows] != r {
                loadRow(r, from: spanStart, count: span, into: row, decode: decode)
                filterRow(row, spanStart: spanStart, strip: strip, into: ring + (r % ringRows) * stripWidth)
                slotRow[r % ringRows] = r
            }

            accumulator.update(repeating: .zero, count: stripWidth)
            let weights = yWeights + y * yStride
            for k in 0..<count {
                let source = ring + ((first + k) % ringRows) * stripWidth
                let weight = weights[k]
                for x in 0..<stripWidth {
                    accumulator[x] += source[x] * weight
                }
            }
            store(accumulator, row: y, strip: strip, encode: encode)
        }
    }

    /// Source pixels `start..<start + count` of row `y`, decoded and premultiplied.
    @inline(__always)
    private func loadRow(
        _ y: Int, from start: Int, count: Int, into row: UnsafeMutablePointer<SIMD4<Float>>,
        decode: UnsafePointer<Float>
    ) {
        let pixels = source + (y * sourceWidth + start) * channels
        if channels == 3 {
            for i in 0..<count {
                let p = pixels + 3 * i
                row[i] = SIMD4(decode[Int(p[0])], decode[Int(p[1])], decode[Int(p[2])], 1)
            }
        } else {
            for i in 0..<count {
                let p = pixels + 4 * i
                let alpha = Float(p[3]) * (1 / 255)
                row[i] = SIMD4(decode[Int(p[0])] * alpha, decode[Int(p[1])] * alpha, decode[Int(p[2])] * alpha, alpha)
            }
        }
    }

    /// The horizontal pass: output columns `strip` from one decoded source span.
    @inline(__always)
    private func filterRow(
        _ row: UnsafeMutablePointer<SIMD4<Float>>, spanStart: Int, strip: Range<Int>,
        into output: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        let starts = xTaps.starts.baseAddress!
        let counts = xTaps.counts.baseAddress!
        let weights = xTaps.weights.baseAddress!
        let stride = xTaps.stride
        var x = 0
        for column in strip {
            let pixels = row + (starts[column] - spanStart)
            let w = weights + column * stride
            // Four independent sums: one running sum would wait on the previous
            // add at every tap, and large reductions have ~100 taps per pixel.
            let count = counts[column]
            var s0 = SIMD4<Float>.zero, s1 = SIMD4<Float>.zero
            var s2 = SIMD4<Float>.zero, s3 = SIMD4<Float>.zero
            var k = 0
            while k + 4 <= count {
                s0 += pixels[k] * w[k]
                s1 += pixels[k + 1] * w[k + 1]
                s2 += pixels[k + 2] * w[k + 2]
                s3 += pixels[k + 3] * w[k + 3]
                k += 4
            }
            while k < count {
                s0 += pixels[k] * w[k]
                k += 1
            }
            output[x] = (s0 + s1) + (s2 + s3)
            x += 1
        }
    }

    /// Un-premultiplies, clamps and encodes one finished output row.
    @inline(__always)
    private func store(
        _ pixels: UnsafeMutablePointer<SIMD4<Float>>, row y: Int, strip: Range<Int>, encode: UnsafePointer<UInt8>
    ) {
        let out = destination + (y * width + strip.lowerBound) * channels
        let steps = Float(TransferTables.outputSteps - 1)
        if channels == 3 {
            for x in 0..<strip.count {
                let v = pixels[x]
                let o = out + 3 * x
                o[0] = encode[Self.step(v[0], steps)]
                o[1] = encode[Self.step(v[1], steps)]
                o[2] = encode[Self.step(v[2], steps)]
            }
        } else {
            for x in 0..<strip.count {
                let v = pixels[x]
                let o = out + 4 * x
                let alpha = Self.unit(v[3])
                let alphaByte = UInt8(alpha * 255 + 0.5)
                o[3] = alphaByte
                guard alphaByte != 0 else {
                    o[0] = 0
                    o[1] = 0
                    o[2] = 0
                    continue
                }
                let inverse = 1 / alpha
                o[0] = encode[Self.step(v[0] * inverse, steps)]
                o[1] = encode[Self.step(v[1] * inverse, steps)]
                o[2] = encode[Self.step(v[2] * inverse, steps)]
            }
        }
    }

    /// `v` clamped to 0...1; NaN (which the filter never produces) becomes 0,
    /// so no input can make the conversion to an index trap.
    @inline(__always)
    private static func unit(_ v: Float) -> Float {
        v > 0 ? (v < 1 ? v : 1) : 0
    }

    /// The output-table index of `v`.
    @inline(__always)
    private static func step(_ v: Float, _ steps: Float) -> Int {
        Int(unit(v) * steps + 0.5)
    }
}
