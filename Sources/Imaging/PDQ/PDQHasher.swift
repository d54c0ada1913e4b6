import Foundation
public import MediaTypes

/// Computes PDQ hashes the way Meta's reference does (ThreatExchange `pdq/`), so hashes
/// made here match those in shared hash lists bit for bit on the same pixels.
///
/// The steps are the reference's, in its floating-point order: luminance
/// (0.299 R + 0.587 G + 0.114 B, alpha ignored), a Jarosz tent filter (two passes of
/// box filters along rows and columns, each window 1/128 of the side, rounded up),
/// a point sample at 64x64 pixel centres, the quality score from that sample's
/// gradients, the 16x16 lowest non-constant DCT coefficients, and one bit per
/// coefficient: above the median or not. The float order matters: a coefficient that
/// sits on the median flips with the last bit of a sum, so sums run as the reference
/// runs them (running box sums, row-by-row DCT products).
public enum PDQHasher {
    /// Images smaller than this on either side get the zero hash and quality 0, as in the reference.
    public static let minimumSide = 5

    /// The signature of decoded pixels (already upright: hash the image as displayed).
    public static func signature(of image: PixelBuffer) -> PDQSignature {
        guard image.width >= minimumSide, image.height >= minimumSide else {
            return PDQSignature(quality: 0, dihedral: Array(repeating: .zero, count: PDQTransform.allCases.count))
        }
        let rows = image.height, cols = image.width
        var luma = [Float](repeating: 0, count: rows * cols)
        fillLuma(image, into: &luma)
        var sample = [Float](repeating: 0, count: 64 * 64)
        if rows == 64 && cols == 64 {
            sample = luma
        } else {
            var scratch = [Float](repeating: 0, count: rows * cols)
            jaroszFilter(&luma, scratch: &scratch, rows: rows, cols: cols,
                         windowAlongRows: windowSize(cols), windowAlongCols: windowSize(rows))
            decimate(luma, rows: rows, cols: cols, into: &sample)
        }
        let quality = qualityMetric(sample)
        let coefficients = dct64To16(sample)
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

    /// The reference's window: old side over twice the new side (64), rounded up.
    static func windowSize(_ side: Int) -> Int { (side + 2 * 64 - 1) / (2 * 64) }

    /// Luminance as `(R * 0.299 + G * 0.587) + B * 0.114` in double precision, then a
    /// float: the Python binding's order, so its hashes are reproduced exactly.
    private static func fillLuma(_ image: PixelBuffer, into luma: inout [Float]) {
        let channels = image.channels
        luma.withUnsafeMutableBufferPointer { out in
            image.bytes.withUnsafeBufferPointer { pixels in
                var p = 0
                for index in 0..<out.count {
                    let y = Double(pixels[p]) * 0.299 + Double(pixels[p + 1]) * 0.587 + Double(pixels[p + 2]) * 0.114
                    out[index] = Float(y)
                    p += channels
                }
            }
        }
    }

    /// Two passes of a box filter along rows then columns: a tent, in place in `buffer`.
    static func jaroszFilter(
        _ buffer: inout [Float], scratch: inout [Float], rows: Int, cols: Int, windowAlongRows: Int, windowAlongCols: Int
    ) {
        buffer.withUnsafeMutableBufferPointer { one in
            scratch.withUnsafeMutableBufferPointer { two in
                for _ in 0..<2 {
                    for row in 0..<rows {
                        box(UnsafePointer(one.baseAddress! + row * cols), two.baseAddress! + row * cols,
                            length: cols, stride: 1, window: windowAlongRows)
                    }
                    for col in 0..<cols {
                        box(UnsafePointer(two.baseAddress! + col), one.baseAddress! + col,
                            length: rows, stride: cols, window: windowAlongCols)
                    }
                }
            }
        }
    }

    /// A centred running mean over `window` samples, shrinking at the ends.
    private static func box(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, length: Int, stride: Int, window: Int) {
        let half = (window + 2) / 2
        var sum: Float = 0
        var count = 0
        var left = 0, right = 0, out = 0
        for _ in 0..<(half - 1) {
            sum += input[right]
            count += 1
            right += stride
        }
        for _ in 0..<(window - half + 1) {
            sum += input[right]
            count += 1
            output[out] = sum / Float(count)
            right += stride
            out += stride
        }
        for _ in 0..<max(0, length - window) {
            sum += input[right]
            sum -= input[left]
            output[out] = sum / Float(count)
            left += stride
            right += stride
            out += stride
        }
        for _ in 0..<(half - 1) {
            sum -= input[left]
            count -= 1
            output[out] = sum / Float(count)
            left += stride
            out += stride
        }
    }

    /// The filtered image sampled at the centres of a 64x64 grid.
    private static func decimate(_ input: [Float], rows: Int, cols: Int, into out: inout [Float]) {
        for i in 0..<64 {
            let row = Int((Double(i) + 0.5) * Double(rows) / 64)
            for j in 0..<64 {
                let col = Int((Double(j) + 0.5) * Double(cols) / 64)
                out[i * 64 + j] = input[row * cols + col]
            }
        }
    }

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

    /// One bit per coefficient: set when above the median (the 128th smallest of 256,
    /// which is what the reference's Torben median returns).
    private static func bits(of block: [Float]) -> PDQHash {
        let median = block.sorted()[127]
        var hash = PDQHash.zero
        for k in 0..<256 where block[k] > median { hash.setBit(k) }
        return hash
    }
}
