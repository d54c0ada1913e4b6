import Catalog
import Foundation
import Testing
@testable import Pipeline

@Suite struct ManifestArrivalsTests {
    @Test func aTakerGetsEveryNameInOrderThenTheEnd() {
        let arrivals = ManifestArrivals()
        let done = DispatchSemaphore(value: 0)
        let taken = Taken()
        let thread = Thread {
            // Blocks on an empty queue until the names come, and ends only at finish().
            while let arrival = arrivals.take() { taken.append(arrival.name) }
            done.signal()
        }
        thread.start()
        for name in ["a.json", "b.json", "c.json"] { arrivals.put(ManifestArrival(name: name, manifest: nil)) }
        arrivals.finish()
        done.wait()
        #expect(taken.names == ["a.json", "b.json", "c.json"])
        #expect(arrivals.take() == nil)
    }

    final class Taken: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ name: String) { lock.withLock { list.append(name) } }
        var names: [String] { lock.withLock { list } }
    }
}
