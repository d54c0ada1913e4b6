extension PDQHasher {
    /// The 64x64 sample exactly as the reference computes it: the whole image filtered by
    /// four box passes of float running sums in the reference's order, then read at the
    /// sample points. Used when ``downsample(_:)``'s double-precision sample leaves a
    /// coefficient within rounding distance of the median (images of flat colours and
    /// exact symmetries, where the reference's float rounding decides bits).
    ///
    /// Eight lines run side by side in the lanes of a SIMD vector (adjacent columns read
    /// as one vector, adjacent rows gathered), each lane doing exactly the scalar sums,
    /// so the results are the reference's bits; the last pass runs only down the 64
    /// sampled columns.
    static func exactSample(_ image: PixelBuffer) -> [Float] {
        let rows = image.height, cols = image.width
        let count = rows * cols
        let one = UnsafeMutablePointer<Float>.allocate(capacity: count)
        let two = UnsafeMutablePointer<Float>.allocate(capacity: count)
        defer {
            one.deallocate()
            two.deallocate()
        }
        var line = [Float](repeating: 0, count: cols)
        for y in 0..<rows {
            fillLuma(image, row: y, into: &line)
            for x in 0..<cols { one[y * cols + x] = line[x] }
        }
        var sample = [Float](repeating: 0, count: 64 * 64)
        if rows == 64 && cols == 64 {
            for i in 0..<count { sample[i] = one[i] }
            return sample
        }
        let alongRows = windowSize(cols), alongCols = windowSize(rows)
        let sampledRows = centres(of: 64, across: rows)
        let sampledCols = centres(of: 64, across: cols)
        boxRows(one, two, rows: rows, cols: cols, window: alongRows)
        boxColumns(two, one, rows: rows, cols: cols, window: alongCols, columns: nil)
        boxRows(one, two, rows: rows, cols: cols, window: alongRows)
        boxColumns(two, one, rows: rows, cols: cols, window: alongCols, columns: sampledCols)
        for (i, row) in sampledRows.enumerated() {
            for (j, col) in sampledCols.enumerated() { sample[i * 64 + j] = one[row * cols + col] }
        }
        return sample
    }

    /// A box pass along every row, eight rows at a time in SIMD lanes.
    private static func boxRows(_ input: UnsafeMutablePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                                rows: Int, cols: Int, window: Int) {
        var row = 0
        while row + 8 <= rows {
            let base = row * cols
            box(length: cols, window: window,
                load: { k in
                    SIMD8(input[base + k], input[base + cols + k], input[base + 2 * cols + k], input[base + 3 * cols + k],
                          input[base + 4 * cols + k], input[base + 5 * cols + k], input[base + 6 * cols + k],
                          input[base + 7 * cols + k])
                },
                store: { k, v in
                    for lane in 0..<8 { output[base + lane * cols + k] = v[lane] }
                })
            row += 8
        }
        while row < rows {
            let base = row * cols
            box(length: cols, window: window,
                load: { k in SIMD8(repeating: input[base + k]) },
                store: { k, v in output[base + k] = v[0] })
            row += 1
        }
    }

    /// A box pass down every column (or only `columns`), eight adjacent columns at a
    /// time read as one vector.
    private static func boxColumns(_ input: UnsafeMutablePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                                   rows: Int, cols: Int, window: Int, columns: [Int]?) {
        if let columns {
            for col in columns {
                box(length: rows, window: window,
                    load: { k in SIMD8(repeating: input[k * cols + col]) },
                    store: { k, v in output[k * cols + col] = v[0] })
            }
            return
        }
        let raw = UnsafeRawPointer(input)
        var col = 0
        while col + 8 <= cols {
            let c = col
            box(length: rows, window: window,
                load: { k in raw.loadUnaligned(fromByteOffset: (k * cols + c) * 4, as: SIMD8<Float>.self) },
                store: { k, v in
                    UnsafeMutableRawPointer(output).storeBytes(of: v, toByteOffset: (k * cols + c) * 4, as: SIMD8<Float>.self)
                })
            col += 8
        }
        while col < cols {
            let c = col
            box(length: rows, window: window,
                load: { k in SIMD8(repeating: input[k * cols + c]) },
                store: { k, v in output[k * cols + c] = v[0] })
            col += 1
        }
    }

    /// The reference's centred running mean over `window` samples, shrinking at the
    /// ends, for eight lines at once: `load(k)` is sample `k` of each line.
    @inline(__always)
    private static func box(length: Int, window: Int, load: (Int) -> SIMD8<Float>, store: (Int, SIMD8<Float>) -> Void) {
        let half = (window + 2) / 2
        var sum = SIMD8<Float>(repeating: 0)
        var count = 0
        var left = 0, right = 0, out = 0
        for _ in 0..<(half - 1) {
            sum += load(right)
            count += 1
            right += 1
        }
        for _ in 0..<(window - half + 1) {
            sum += load(right)
            count += 1
            store(out, sum / SIMD8(repeating: Float(count)))
            right += 1
            out += 1
        }
        for _ in 0..<max(0, length - window) {
            sum += load(right)
            sum -= load(left)
            store(out, sum / SIMD8(repeating: Float(count)))
            left += 1
            right += 1
            out += 1
        }
        for _ in 0..<(half - 1) {
            sum -= load(left)
            count -= 1
            store(out, sum / SIMD8(repeating: Float(count)))
            left += 1
            out += 1
        }
    }
}
