// tc-fake-stream: a loopback Jetstream that posts at a steady rate, and the image
// origin its posts name, for bench/watch-stream.sh. Not a user tool.
//
//   tc-fake-stream [--rate 1000] [--seconds 600] [--images-every 20] [--port-file PATH]
//
// Prints `jetstream URL` and `origin URL`, sends `--rate` posts a second tagged #bench
// (every `--images-every`th with a photo from a pool of 50, 320x240 PNGs) for
// `--seconds`, then prints `sent N` and keeps serving until killed. Each post's text
// carries its number and when it was sent (`n=… sent=<ms since 1970>`), so the bench
// measures how long a post takes to be listed and whether any was lost. Its backlog
// (for cursors) is the last two minutes. Sending starts when the first client connects.

import Foundation
import StreamTestSupport
import TestSupport

let arguments = ToolArguments(tool: "tc-fake-stream")
let rate = arguments.number("--rate", 1000)
let seconds = arguments.number("--seconds", 600)
let imagesEvery = max(1, arguments.number("--images-every", 20))

let origin: LoopbackHTTPServer
do {
    let images = (0..<50).map { TinyPNG.make(width: 320, height: 240, tag: "bench-\($0)") }
    origin = try LoopbackHTTPServer { request in
        guard request.path.hasPrefix("/img/"), let n = request.path.split(separator: "bafkreibench").last
            .flatMap({ Int($0.prefix { $0.isNumber }) }), n < images.count else { return .respond(status: 404) }
        return .respond(status: 200, headers: [("Content-Type", "image/png")], body: images[n])
    }
} catch { arguments.fail("cannot start the origin: \(error)") }
let jetstream = try await FakeJetstream.start(keep: max(1000, rate * 120), realTime: true)
print("jetstream \(jetstream.url)")
print("origin \(origin.baseURL)")
fflush(nil)

// Posts sent before anyone listens are nobody's to miss: the clock starts with the first client.
while jetstream.openConnections == 0 { try await Task.sleep(for: .milliseconds(10)) }
let start = ContinuousClock.now
var sent = 0
let total = rate * seconds
let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
while sent < total {
    // Paced in 10 ms steps: each step sends what the rate owes by then.
    let due = min(total, Int((ContinuousClock.now - start) / .milliseconds(1) * Double(rate) / 1000))
    while sent < due {
        sent += 1
        let now = Date()
        let millis = Int64(now.timeIntervalSince1970 * 1000)
        let images = sent % imagesEvery == 0 ? ["bafkreibench\(sent / imagesEvery % 50)"] : []
        jetstream.send(FakeJetstream.post(did: "did:plc:bench\(sent % 1000)", rkey: "b\(sent)",
                                          text: "#bench post n=\(sent) sent=\(millis)", tags: ["bench"],
                                          imageCIDs: images, createdAt: now.formatted(iso)))
    }
    try await Task.sleep(for: .milliseconds(10))
}
print("sent \(sent)")
fflush(nil)
while true { try await Task.sleep(for: .seconds(3600)) }
