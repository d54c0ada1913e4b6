extension Duration {
    /// Seconds as a floating-point number, for rates and human-readable timings.
    public var secondsDouble: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
