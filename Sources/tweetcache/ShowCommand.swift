import ArgumentParser
import BlobStore
import Foundation
import Imaging
import Inspect

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Draw a cached image in the terminal.",
        discussion: """
            24-bit colour half blocks (two pixels a cell) by default; the kitty or iTerm2 \
            inline-image protocol when the terminal says it supports one.
            """)

    @Argument(help: ArgumentHelp("A hash prefix, a URL or a tweet id (its first image).", valueName: "HASH-PREFIX|URL|TWEET-ID"))
    var target: String

    @Option(name: .long, help: "Width in terminal cells (default: the terminal's width).")
    var width: Int?

    @Option(name: .long, help: ArgumentHelp("blocks, kitty or iterm (default: detected).", valueName: "PROTOCOL"))
    var `protocol`: String?

    @OptionGroup var options: InspectOptions

    func validate() throws {
        if let width, !(1...1000).contains(width) { throw ValidationError("--width must be between 1 and 1000") }
        if let p = `protocol`, TerminalPreview.GraphicsProtocol(rawValue: p) == nil {
            throw ValidationError("--protocol must be blocks, kitty or iterm")
        }
    }

    func run() throws {
        let snapshot = try options.snapshot()
        let environment = ProcessInfo.processInfo.environment
        let hash: BlobHash
        do { hash = try ImageResolver(snapshot: snapshot).resolveImage(target) } catch { throw InspectFailure.exit(error) }
        let bytes: [UInt8]
        do { bytes = try snapshot.store.read(hash) } catch { throw FailureExit.message(error.description, code: 1) }
        let columns = width ?? TerminalPreview.terminalColumns(environment: environment)
        let mode = `protocol`.flatMap(TerminalPreview.GraphicsProtocol.init(rawValue:)) ?? TerminalPreview.detect(environment: environment)
        do {
            switch mode {
            case .blocks:
                let rows = width == nil ? TerminalPreview.terminalRows(environment: environment).map { max(1, $0 - 1) } : nil
                emit(TerminalPreview.halfBlocks(try TerminalPreview.pixels(bytes, columns: columns, maxRows: rows)))
            case .kitty:
                let png = ImageFormat.sniff(bytes) == .png ? bytes
                    : try PNGEncoder.encode(try TerminalPreview.pixels(bytes, columns: min(columns * 10, 2000)))
                emit(TerminalPreview.kitty(png: png, columns: columns))
            case .iterm:
                emit(TerminalPreview.iterm(file: bytes, columns: columns))
            }
        } catch {
            throw FailureExit.message("cannot show \(hash.hex): \(error)", code: 1)
        }
    }
}
