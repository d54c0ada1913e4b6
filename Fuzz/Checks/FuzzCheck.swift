/// One fuzz target's work, shared by the libFuzzer binary (`Fuzz/fuzz-*`) and the
/// regression tests (`FuzzRegressionTests`), so an input that once broke something
/// is replayed through exactly the checks that caught it.
public protocol FuzzCheck {
    /// The target's name, also its folder under `Fuzz/Regressions/`.
    static var name: String { get }
    /// Runs one input; nil when every invariant held, else what broke. A crash,
    /// hang or leak is the sanitizers' finding, not a return value.
    static func run(_ input: [UInt8]) -> String?
    /// The seed corpus, made by the project's own code.
    static func seeds() throws -> [String: [UInt8]]
}

/// Every target, for tools and tests that go through them all. Computed, not stored:
/// a global array of metatypes is not `Sendable` in Swift 6.
public var allFuzzChecks: [any FuzzCheck.Type] {
    [
        ResultsCheck.self, IIIFCheck.self, DecodeCheck.self, PackCheck.self, ServerCheck.self, ManifestCheck.self,
        WebPDecodeCheck.self, GIFDecodeCheck.self, HEIFDecodeCheck.self, ColorProfileCheck.self,
    ]
}
