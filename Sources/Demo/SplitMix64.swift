/// SplitMix64: tiny, fast, and the same sequence on every platform, unlike the system
/// generator, which must never feed the sample. The one generator of the demo: its
/// results and every rendered picture derive from seeds through it (and the benchmark
/// corpora made by hidden commands).
public struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (bound > 0); the tiny modulo bias is irrelevant here.
    public mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// A value in `0..<1` with 53 random bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(i, below(i + 1))
        }
    }

    mutating func string(_ length: Int, from alphabet: [Character]) -> String {
        String((0..<length).map { _ in pick(alphabet) })
    }
}
