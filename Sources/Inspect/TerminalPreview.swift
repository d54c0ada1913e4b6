import Foundation
import Imaging

/// `tweetcache show`: an image drawn in the terminal.
///
/// Half blocks by default: each cell is `▀` with the upper pixel as foreground and
/// the lower as background in 24-bit colour, so a cell shows two square-ish pixels
/// and any truecolor terminal can draw it. kitty and iTerm2 get the real image
/// through their inline-image protocols instead.
public enum TerminalPreview {
    public enum GraphicsProtocol: String, Sendable, CaseIterable {
        case blocks, kitty, iterm
    }

    /// kitty when it says so (`TERM=xterm-kitty` or `KITTY_WINDOW_ID`), iTerm2 by
    /// `TERM_PROGRAM`, else half blocks.
    public static func detect(environment: [String: String]) -> GraphicsProtocol {
        if environment["TERM"] == "xterm-kitty" || !(environment["KITTY_WINDOW_ID"] ?? "").isEmpty { return .kitty }
        if environment["TERM_PROGRAM"] == "iTerm.app" { return .iterm }
        return .blocks
    }

    /// Decodes `bytes` at no more than twice the needed size (JPEG shrink-on-load),
    /// then resizes to `columns` cells wide, aspect kept, alpha flattened on white.
    public static func pixels(_ bytes: [UInt8], columns: Int, maxRows: Int? = nil) throws(ImagingError) -> PixelBuffer {
        let info = try ImageDecoder.info(of: bytes)
        let width = max(1, columns)
        var height = max(1, Int((Double(info.displayHeight) * Double(width) / Double(max(1, info.displayWidth))).rounded()))
        var targetWidth = width
        if let maxRows, height > maxRows * 2 {
            height = maxRows * 2
            targetWidth = max(1, Int((Double(info.displayWidth) * Double(height) / Double(max(1, info.displayHeight))).rounded()))
        }
        let denominator = info.scalesOnLoad
            ? ShrinkOnLoad.scaleDenominator(
                sourceWidth: info.width, sourceHeight: info.height,
                targetWidth: info.orientation.swapsDimensions ? height : targetWidth,
                targetHeight: info.orientation.swapsDimensions ? targetWidth : height)
            : 1
        var image = try ImageDecoder.decode(bytes, options: DecodeOptions(scaleDenominator: denominator))
        if image.hasAlpha { image = image.flattened() }
        return try Resampler.resize(image, width: targetWidth, height: height)
    }

    /// Rows of `▀` cells, two pixel rows per text row; an odd last row is drawn on
    /// the terminal's own background.
    public static func halfBlocks(_ image: PixelBuffer) -> String {
        let c = image.channels
        let px = image.bytes
        var out = ""
        out.reserveCapacity(image.width * (image.height / 2 + 1) * 40)
        for y in stride(from: 0, to: image.height, by: 2) {
            for x in 0..<image.width {
                let top = (y * image.width + x) * c
                out += "\u{1B}[38;2;\(px[top]);\(px[top + min(1, c - 1)]);\(px[top + min(2, c - 1)])m"
                if y + 1 < image.height {
                    let bottom = ((y + 1) * image.width + x) * c
                    out += "\u{1B}[48;2;\(px[bottom]);\(px[bottom + min(1, c - 1)]);\(px[bottom + min(2, c - 1)])m"
                } else {
                    out += "\u{1B}[49m"
                }
                out += "▀"
            }
            out += "\u{1B}[0m\n"
        }
        return out
    }

    /// kitty graphics protocol: PNG data, base64 in chunks of 4096 (`m=1` until the last).
    public static func kitty(png: [UInt8], columns: Int) -> String {
        let encoded = Array(Data(png).base64EncodedString().utf8)
        var out = ""
        var offset = 0
        repeat {
            let end = min(offset + 4096, encoded.count)
            let chunk = String(decoding: encoded[offset..<end], as: UTF8.self)
            let more = end < encoded.count ? 1 : 0
            out += offset == 0 ? "\u{1B}_Gf=100,a=T,c=\(columns),m=\(more);\(chunk)\u{1B}\\" : "\u{1B}_Gm=\(more);\(chunk)\u{1B}\\"
            offset = end
        } while offset < encoded.count
        return out + "\n"
    }

    /// iTerm2's OSC 1337 `File=` inline image.
    public static func iterm(file: [UInt8], columns: Int) -> String {
        "\u{1B}]1337;File=inline=1;size=\(file.count);width=\(columns);preserveAspectRatio=1:"
            + Data(file).base64EncodedString() + "\u{07}\n"
    }

    /// The terminal's width in columns: `TIOCGWINSZ` on stdout, else `$COLUMNS`, else 80.
    public static func terminalColumns(environment: [String: String]) -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }

    public static func terminalRows(environment: [String: String]) -> Int? {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 { return Int(size.ws_row) }
        return environment["LINES"].flatMap(Int.init)
    }
}
