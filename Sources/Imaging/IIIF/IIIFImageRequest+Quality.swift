extension IIIFImageRequest {
    /// Colour treatment of the output (spec 4.4). This service's `default` is `color`.
    public enum Quality: String, Sendable, Hashable, CaseIterable {
        case `default`
        case color
        case gray
        case bitonal

        /// Parses the part of the last segment before the format's dot.
        public static func parse(_ text: some StringProtocol) throws(IIIFRequestError) -> Quality {
            guard let quality = Quality(rawValue: String(text)) else {
                throw .badRequest("quality \"\(text)\" is not default, color, gray or bitonal")
            }
            return quality
        }

        /// `default` and `color` render the same pixels, so they share one
        /// canonical name (and one cache entry).
        public var canonical: Quality { self == .color ? .default : self }
    }
}
