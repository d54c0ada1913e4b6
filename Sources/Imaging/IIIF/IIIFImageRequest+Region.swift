extension IIIFImageRequest {
    /// The part of the full image to return (spec 4.1).
    public enum Region: Sendable, Hashable {
        /// The whole image.
        case full
        /// The largest centred square.
        case square
        /// `x,y,w,h` in full-image pixels.
        case pixels(x: Int, y: Int, width: Int, height: Int)
        /// `pct:x,y,w,h` in percent of the full image's width and height.
        case percent(x: Double, y: Double, width: Double, height: Double)

        /// Parses one `{region}` path segment.
        public static func parse(_ text: some StringProtocol) throws(IIIFRequestError) -> Region {
            let text = Substring(text)
            switch text {
            case "full": return .full
            case "square": return .square
            default: break
            }
            if text.hasPrefix("pct:") {
                let parts = text.dropFirst(4).split(separator: ",", omittingEmptySubsequences: false)
                let values = parts.compactMap { IIIFRequestNumber.decimal($0) }
                guard parts.count == 4, values.count == 4 else {
                    throw .badRequest("region \"\(text)\" is not pct:x,y,w,h with non-negative numbers")
                }
                return .percent(x: values[0], y: values[1], width: values[2], height: values[3])
            }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            let values = parts.compactMap { IIIFRequestNumber.integer($0) }
            guard parts.count == 4, values.count == 4 else {
                throw .badRequest("region \"\(text)\" is not full, square, x,y,w,h or pct:x,y,w,h")
            }
            return .pixels(x: values[0], y: values[1], width: values[2], height: values[3])
        }

        /// The region in full-image pixels, cropped at the image's edges.
        /// Zero-sized regions and regions entirely outside the image are
        /// refused (spec 4.1); a positive percentage never rounds to nothing.
        public func rect(imageWidth width: Int, imageHeight height: Int) throws(IIIFRequestError) -> TileRect {
            guard width > 0, height > 0 else { throw .badRequest("the image has no pixels") }
            switch self {
            case .full:
                return TileRect(x: 0, y: 0, width: width, height: height)
            case .square:
                let side = min(width, height)
                return TileRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
            case .pixels(let x, let y, let w, let h):
                guard w > 0, h > 0 else { throw .badRequest("region \(x),\(y),\(w),\(h) has zero width or height") }
                guard x < width, y < height else {
                    throw .badRequest("region \(x),\(y),\(w),\(h) lies outside the \(width)x\(height) image")
                }
                return TileRect(x: x, y: y, width: min(w, width - x), height: min(h, height - y))
            case .percent(let px, let py, let pw, let ph):
                guard pw > 0, ph > 0 else { throw .badRequest("region pct:\(px),\(py),\(pw),\(ph) has zero width or height") }
                let x = (px * Double(width) / 100).rounded()
                let y = (py * Double(height) / 100).rounded()
                guard x < Double(width), y < Double(height) else {
                    throw .badRequest("region pct:\(px),\(py),\(pw),\(ph) lies outside the image")
                }
                let left = Int(x)
                let top = Int(y)
                let w = max(1, min((pw * Double(width) / 100).rounded(), Double(width - left)))
                let h = max(1, min((ph * Double(height) / 100).rounded(), Double(height - top)))
                return TileRect(x: left, y: top, width: Int(w), height: Int(h))
            }
        }
    }
}
