// tc-thumb-export: a PNG thumbnail of every image (JPEG, PNG, WebP, GIF, AVIF, HEIC) in a folder, made by the
// project's Thumbnailer, for scripts/compare-thumbs.sh to compare with
// vipsthumbnail's. PNG, so no JPEG re-encoding muddies the comparison. Not a user tool.
//
//   tc-thumb-export CORPUS_DIR OUT_DIR [--size 256] [--linear 1|0] [--shrink-on-load 1|0]
//
// --linear 0 filters on sRGB values (as vips does); --shrink-on-load 0 decodes
// at full size. Exits 1 if any image failed.

import Foundation
import Imaging
import TestSupport

let arguments = ToolArguments(tool: "tc-thumb-export")
guard arguments.positional.count == 2 else {
    arguments.fail("usage: tc-thumb-export CORPUS_DIR OUT_DIR [--size N] [--linear 1|0] [--shrink-on-load 1|0]")
}
let positional = arguments.positional
let corpus = URL(fileURLWithPath: positional[0], isDirectory: true)
let out = URL(fileURLWithPath: positional[1], isDirectory: true)
let longEdge = arguments.number("--size", 256)
let linearLight = (arguments.options["--linear"] ?? "1") != "0"
let shrinkOnLoad = (arguments.options["--shrink-on-load"] ?? "1") != "0"
let thumbOptions = ThumbnailOptions(linearLight: linearLight, shrinkOnLoad: shrinkOnLoad)

do {
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        .filter { ["jpg", "jpeg", "png", "webp", "gif", "avif", "heic"].contains($0.pathExtension.lowercased()) }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
    guard !files.isEmpty else { arguments.fail("no .jpg/.jpeg/.png files in \(corpus.path)") }
    var failures: [String] = []
    var seconds = 0.0
    for file in files {
        let data = [UInt8](try Data(contentsOf: file))
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let thumb = try Thumbnailer.thumbnail(data, longEdge: longEdge, options: thumbOptions)
            seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let name = file.deletingPathExtension().lastPathComponent + ".png"
            try Data(try PNGEncoder.encode(thumb.image, compressionLevel: 1)).write(to: out.appendingPathComponent(name))
        } catch {
            failures.append("\(file.lastPathComponent): \(error)")
        }
    }
    print("tc-thumb-export: \(files.count) files, \(failures.count) failed, \(String(format: "%.2f", seconds)) s in Thumbnailer (linear \(linearLight), \(longEdge) px, shrink-on-load \(shrinkOnLoad))")
    for failure in failures { FileHandle.standardError.write(Data("  \(failure)\n".utf8)) }
    exit(failures.isEmpty ? 0 : 1)
} catch {
    arguments.fail("\(error)")
}
