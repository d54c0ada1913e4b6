/// The renderer's draws from a seed: uniform floats and integers, colours.
extension SplitMix64 {
    /// Uniform in `range`.
    mutating func float(_ range: ClosedRange<Float>) -> Float {
        range.lowerBound + Float(next() >> 40) / Float(1 << 24) * (range.upperBound - range.lowerBound)
    }

    mutating func int(_ range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    mutating func color(_ r: ClosedRange<Float>, _ g: ClosedRange<Float>, _ b: ClosedRange<Float>) -> Color {
        Color(float(r), float(g), float(b))
    }
}
