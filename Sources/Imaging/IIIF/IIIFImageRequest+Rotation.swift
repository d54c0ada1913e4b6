extension IIIFImageRequest {
    /// Mirroring and clockwise rotation (spec 4.3). Parsed for any angle in
    /// 0...360 so syntax errors (400) stay apart from unsupported angles (501).
    public struct Rotation: Sendable, Hashable {
        /// Clockwise degrees as requested, 0...360.
        public var degrees: Double
        /// The `!` prefix: mirror left to right before rotating.
        public var mirrored: Bool

        public init(degrees: Double, mirrored: Bool = false) {
            self.degrees = degrees
            self.mirrored = mirrored
        }

        /// Parses one `{rotation}` path segment.
        public static func parse(_ text: some StringProtocol) throws(IIIFRequestError) -> Rotation {
            let original = Substring(text)
            let mirrored = original.hasPrefix("!")
            let number = mirrored ? original.dropFirst() : original
            guard let degrees = IIIFRequestNumber.decimal(number) else {
                throw .badRequest("rotation \"\(original)\" is not n or !n with n a non-negative number")
            }
            guard degrees <= 360 else { throw .badRequest("rotation \(number) is outside 0-360 degrees") }
            return Rotation(degrees: degrees, mirrored: mirrored)
        }

        /// Whether this server can apply it: multiples of 90 degrees only.
        public var isSupported: Bool { degrees.truncatingRemainder(dividingBy: 90) == 0 }

        /// 0, 90, 180 or 270 (360 is the same picture as 0); nil for other angles.
        public var quarterTurnDegrees: Int? {
            guard isSupported, (0...360).contains(degrees) else { return nil }
            return Int(degrees) % 360
        }
    }
}
