import Imaging
import Inspect
import Testing

@Suite struct TerminalPreviewTests {
    @Test func halfBlocksPairRowsAndLeaveAnOddRowOnTheBackground() throws {
        // 2x3 RGB: rows red, green, blue.
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255]
        let image = try PixelBuffer(width: 2, height: 3, channels: 3, bytes: pixels)
        let out = TerminalPreview.halfBlocks(image)
        let lines = out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;255;0m▀\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;255;0m▀\u{1B}[0m")
        #expect(lines[1] == "\u{1B}[38;2;0;0;255m\u{1B}[49m▀\u{1B}[38;2;0;0;255m\u{1B}[49m▀\u{1B}[0m")
    }

    @Test func sizesToTheColumnsKeepingAspect() throws {
        let image = try PixelBuffer(width: 400, height: 100, channels: 3, bytes: [UInt8](repeating: 128, count: 400 * 100 * 3))
        let png = try PNGEncoder.encode(image)
        let small = try TerminalPreview.pixels(png, columns: 40)
        #expect(small.width == 40)
        #expect(small.height == 10)
        let capped = try TerminalPreview.pixels(png, columns: 400, maxRows: 5)
        #expect(capped.height == 10)
        #expect(capped.width == 40)
    }

    @Test func kittyChunksAt4096() {
        let out = TerminalPreview.kitty(png: [UInt8](repeating: 7, count: 6000), columns: 10)
        #expect(out.hasPrefix("\u{1B}_Gf=100,a=T,c=10,m=1;"))
        #expect(out.contains("\u{1B}_Gm=0;"))
    }
}
