import Foundation
public import MediaTypes

/// Computes PDQ hashes the way Meta's reference does (ThreatExchange `pdq/`), so hashes
/// made here match those in shared hash lists bit for bit on the same pixels.
///
/// The steps are the reference's: luminance (0.299 R + 0.587 G + 0.114 B, alpha
/// ignored), a Jarosz tent filter (two passes of box filters along rows and columns,
/// each window 1/128 of the side, rounded up), a point sample at 64x64 pixel centres,
/// the quality score from that sample's gradients, the 16x16 lowest non-constant DCT
/// coefficients, and one bit per coefficient: above the median or not. The filter is
/// evaluated only where it is sampled (``downsample(_:)``); from the sample on, sums
/// run in the reference's float order (a coefficient on the median flips with the last
/// bit of a sum).
public enum PDQHasher {
    /// Images smaller than this on either side get the zero hash and quality 0, as in the reference.
    public static let minimumSide = 5

    /// The signature of decoded pixels (already upright: hash the image as displayed).
    public static func signature(of image: PixelBuffer) -> PDQSignature {
        guard image.width >= minimumSide, image.height >= minimumSide else {
            return PDQSignature(quality: 0, dihedral: Array(repeating: .zero, count: PDQTransform.allCases.count))
        }
        var sample = downsample(image)
        var coefficients = dct64To16(sample)
        if isFragile(coefficients) {
            sample = exactSample(image)
            coefficients = dct64To16(sample)
        }
        let quality = qualityMetric(sample)
        let dihedral = PDQTransform.allCases.map { bits(of: transformed(coefficients, by: $0)) }
        return PDQSignature(quality: quality, dihedral: dihedral)
    }

    /// The signature of an image file: decoded at full size (as the reference is fed),
    /// turned upright by its EXIF orientation, refused beyond `maxPixels`.
    public static func signature(ofFile data: [UInt8], maxPixels: Int = 100_000_000) throws(ImagingError) -> PDQSignature {
        let image = try ImageDecoder.decode(data, options: DecodeOptions(maxPixels: maxPixels))
        return signature(of: image)
    }

    // MARK: - Steps

    /// `count` sample positions spread evenly over `length`: the centre of each of
    /// `count` equal parts, rounded down.
    static func centres(of count: Int, across length: Int) -> [Int] {
        (0..<count).map { (i: Int) -> Int in
            let centre: Double = (Double(i) + 0.5) * Double(length) / Double(count)
            return Int(centre)
        }
    }

    /// The reference's window: old side over twice the new side (64), rounded up.
    static func windowSize(_ side: Int) -> Int { (side + 2 * 64 - 1) / (2 * 64) }

    /// Luminance, tent filter and the 64x64 point sample, in one pass over the pixels.
    ///
    /// The reference filters the whole image (four box passes, a buffer of floats the
    /// size of the image twice over) and then reads 4,096 of its values. The filter is
    /// linear and separable, so each of those values is a weighted sum of the pixels
    /// near it: the weights of the two box passes along a column, times those along a
    /// row (``tentWeights(length:window:at:)``). Each row of luminance is made, added
    /// into the 64 sampled rows whose weights reach it (a vector multiply-add along the
    /// row), and dropped; then each sample is the row weights applied to its sampled
    /// row. No image-sized buffer, no pass down a column, about two multiply-adds a
    /// pixel. The sums run in double precision, so the samples are the filter's values
    /// to within the reference's own float rounding (hashes differ from the reference's
    /// only when a coefficient sits on the median within that rounding: measured by
    /// `bench/pdq-agreement.py`).
    static func downsample(_ image: PixelBuffer) -> [Float] {
        let rows = image.height, cols = image.width
        var sample = [Float](repeating: 0, count: 64 * 64)
        var luma = [Float](repeating: 0, count: cols)
        if rows == 64 && cols == 64 {
            // As the reference: a 64x64 image is the sample itself.
            for y in 0..<64 {
                fillLuma(image, row: y, into: &luma)
                for x in 0..<64 { sample[y * 64 + x] = luma[x] }
            }
            return sample
        }
        let sampledRows = centres(of: 64, across: rows)
        let sampledCols = centres(of: 64, across: cols)
        let columnWeights = sampledRows.map { tentWeights(length: rows, window: windowSize(rows), at: $0) }
        let rowWeights = sampledCols.map { tentWeights(length: cols, window: windowSize(cols), at: $0) }
        // Which sampled rows each image row feeds.
        var feeds = [[(sample: Int, weight: Double)]](repeating: [], count: rows)
        for (i, w) in columnWeights.enumerated() {
            for (k, weight) in w.weights.enumerated() where weight != 0 { feeds[w.start + k].append((i, weight)) }
        }
        var accumulated = [Double](repeating: 0, count: 64 * cols)
        accumulated.withUnsafeMutableBufferPointer { acc in
            for y in 0..<rows where !feeds[y].isEmpty {
                fillLuma(image, row: y, into: &luma)
                luma.withUnsafeBufferPointer { line in
                    for (i, weight) in feeds[y] {
                        let target = acc.baseAddress! + i * cols
                        let w4 = SIMD4<Double>(repeating: weight)
                        var x = 0
                        while x + 4 <= cols {
                            let v = SIMD4<Double>(Double(line[x]), Double(line[x + 1]), Double(line[x + 2]), Double(line[x + 3]))
                            let raw = UnsafeMutableRawPointer(target + x)
                            raw.storeBytes(of: raw.loadUnaligned(as: SIMD4<Double>.self) + w4 * v, as: SIMD4<Double>.self)
                            x += 4
                        }
                        while x < cols {
                            target[x] += weight * Double(line[x])
                            x += 1
                        }
                    }
                }
            }
            for i in 0..<64 {
                for (j, w) in rowWeights.enumerated() {
                    var sum = 0.0
                    for (k, weight) in w.weights.enumerated() { sum += weight * acc[i * cols + w.start + k] }
                    sample[i * 64 + j] = Float(sum)
                }
            }
        }
        return sample
    }

    /// The weights of the reference's filter along one side at output `index`: two
    /// passes of its box (window `window`, centred as the reference centres it: output
    /// `o` averages inputs `o - (window - half) ... o + half - 1`, `half = (window + 2) / 2`,
    /// cut at the ends and divided by what is left), from input `start` on.
    static func tentWeights(length: Int, window: Int, at index: Int) -> (start: Int, weights: [Double]) {
        let half = (window + 2) / 2
        func span(_ o: Int) -> ClosedRange<Int> { max(0, o - (window - half))...min(length - 1, o + half - 1) }
        let outer = span(index)
        let low = span(outer.lowerBound).lowerBound, high = span(outer.upperBound).upperBound
        var weights = [Double](repeating: 0, count: high - low + 1)
        for m in outer {
            let inner = span(m)
            let share = 1 / Double(outer.count) / Double(inner.count)
            for x in inner { weights[x - low] += share }
        }
        return (low, weights)
    }

    /// One row of luminance as `(R * 0.299 + G * 0.587) + B * 0.114` in double precision,
    /// then a float: the reference's input as the Python binding makes it. The products
    /// are looked up (the same doubles a multiplication gives).
    static func fillLuma(_ image: PixelBuffer, row: Int, into luma: inout [Float]) {
        let channels = image.channels, cols = image.width
        lumaTables.withUnsafeBufferPointer { t in
            image.bytes.withUnsafeBufferPointer { pixels in
                luma.withUnsafeMutableBufferPointer { out in
                    var p = row * cols * channels
                    for x in 0..<cols {
                        let red: Double = t[Int(pixels[p])], green: Double = t[256 + Int(pixels[p + 1])]
                        let blue: Double = t[512 + Int(pixels[p + 2])]
                        out[x] = Float(red + green + blue)
                        p += channels
                    }
                }
            }
        }
    }

    private static let lumaTables: [Double] = {
        var table = [Double](repeating: 0, count: 768)
        for v in 0..<256 {
            table[v] = Double(v) * 0.299
            table[256 + v] = Double(v) * 0.587
            table[512 + v] = Double(v) * 0.114
        }
        return table
    }()

    /// The reference's heuristic: significant steps between neighbours, scaled to 0...100.
    static func qualityMetric(_ sample: [Float]) -> Int {
        var sum = 0
        for i in 0..<63 {
            for j in 0..<64 {
                let d = Int((sample[i * 64 + j] - sample[(i + 1) * 64 + j]) * 100 / 255)
                sum += abs(d)
            }
        }
        for i in 0..<64 {
            for j in 0..<63 {
                let d = Int((sample[i * 64 + j] - sample[i * 64 + j + 1]) * 100 / 255)
                sum += abs(d)
            }
        }
        return min(sum / 90, 100)
    }

    /// Rows 1...16 of the 64-point DCT-II basis (row 0, the mean, carries no shape).
    private static let dctMatrix: [Float] = {
        let scale = Float((2.0 / 64.0).squareRoot())
        var matrix = [Float](repeating: 0, count: 16 * 64)
        for i in 0..<16 {
            for j in 0..<64 {
                matrix[i * 64 + j] = Float(Double(scale) * cos(Double.pi / 2 / 64 * Double(i + 1) * Double(2 * j + 1)))
            }
        }
        return matrix
    }()

    /// `D A Dᵀ` for the 16x64 basis `D`: the 16x16 block of low frequencies.
    private static func dct64To16(_ a: [Float]) -> [Float] {
        var t = [Float](repeating: 0, count: 16 * 64)
        var b = [Float](repeating: 0, count: 16 * 16)
        dctMatrix.withUnsafeBufferPointer { d in
            a.withUnsafeBufferPointer { a in
                for i in 0..<16 {
                    for j in 0..<64 {
                        var sum: Float = 0
                        for k in 0..<64 { sum += d[i * 64 + k] * a[k * 64 + j] }
                        t[i * 64 + j] = sum
                    }
                }
                for i in 0..<16 {
                    for j in 0..<16 {
                        var sum: Float = 0
                        for k in 0..<64 { sum += t[i * 64 + k] * d[j * 64 + k] }
                        b[i * 16 + j] = sum
                    }
                }
            }
        }
        return b
    }

    /// The block of the image turned or mirrored: DCT coefficients change sign with the
    /// parity of their frequency under a flip, and a transpose swaps the axes.
    private static func transformed(_ a: [Float], by transform: PDQTransform) -> [Float] {
        if transform == .original { return a }
        var b = [Float](repeating: 0, count: 256)
        for i in 0..<16 {
            for j in 0..<16 {
                let value = a[i * 16 + j]
                let odd = (i: i & 1 == 1, j: j & 1 == 1, sum: (i + j) & 1 == 1)
                switch transform {
                case .original: b[i * 16 + j] = value
                case .rotate90: b[j * 16 + i] = odd.j ? value : -value
                case .rotate180: b[i * 16 + j] = odd.sum ? -value : value
                case .rotate270: b[j * 16 + i] = odd.i ? value : -value
                case .flipX: b[i * 16 + j] = odd.i ? value : -value
                case .flipY: b[i * 16 + j] = odd.j ? value : -value
                case .flipPlus1: b[j * 16 + i] = value
                case .flipMinus1: b[j * 16 + i] = odd.sum ? -value : value
                }
            }
        }
        return b
    }

    /// Whether the 128th and 129th smallest coefficients (the two sides of the median
    /// cut) are so close that the reference's float rounding could order them otherwise
    /// than the double-precision sample does. The two samples' coefficients differed by
    /// at most 0.012 over 400 photos of up to 12 megapixels (and the gap was under 0.03
    /// for 4-8% of them, which are then hashed the reference's way); a fallback costs
    /// only time, so the margin is wide.
    static func isFragile(_ block: [Float]) -> Bool {
        let sorted = block.sorted()
        return sorted[128] - sorted[127] < fragileGap
    }

    static let fragileGap: Float = 0.03

    /// One bit per coefficient: set when above the median (the 128th smallest of 256,
    /// which is what the reference's Torben median returns).
    private static func bits(of block: [Float]) -> PDQHash {
        let median = block.sorted()[127]
        var hash = PDQHash.zero
        for k in 0..<256 where block[k] > median { hash.setBit(k) }
        return hash
    }
}
