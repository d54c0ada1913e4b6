// tc-stress: a child process for the BlobStore crash-safety and
// multi-process tests. Not a user tool.
//
//   tc-stress slow-writer <root> <seed> <size> <chunk> <pause-µs>
//       Forever: stream blob number k (content from seed + k) in `chunk`-byte
//       pieces, sleeping between pieces, publish it, record it in the index.
//       Prints "ready" on stdout once its store and index are open; the test
//       kills it with SIGKILL at a random instant after that.
//   tc-stress writer <root> <seed> <count>
//       Store `count` blobs, even-numbered ones identical in every process,
//       odd-numbered ones unique to `seed`, and index them; exit 0 on success.
//   tc-stress pack-writer <root> <seed> <size>
//       Forever: publish a derived file (as pyramid packs are published) at
//       the pack path of the blob hash of `seed`, alternating two contents
//       (every byte 0xA1, every byte 0xB2); the test kills it at a random instant.
//   tc-stress bench <root> <count> <size>
//       Stream `count` distinct blobs of `size` bytes in 16 KiB pieces (the
//       size libcurl hands over), record them in one batch, print timings.
//
// Prints "published <hash>" per blob on stdout; errors go to stderr, exit 1.

import BlobStore
import TestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deterministic bytes: SplitMix64 from `seed`, so the test can regenerate
/// what the child was writing without sharing code with it.
func pattern(seed: UInt64, count: Int) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < raw.count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for shift in 0..<8 where offset < raw.count {
                raw[offset] = UInt8(truncatingIfNeeded: z >> UInt64(shift * 8))
                offset += 1
            }
        }
    }
    return bytes
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tc-stress: \(message)\n".utf8))
    exit(1)
}

func announce(_ hash: BlobHash) {
    print("published \(hash)")
    fflush(nil)  // all streams; `stdout` is a mutable C global Swift 6 rejects
}

func slowWriter(root: URL, seed: UInt64, size: Int, chunk: Int, pauseMicros: UInt32) throws(BlobStoreError) -> Never {
    let store = try BlobStore(root: root)
    let index = try CacheIndex(store: store)
    // The test's random instant counts from here: a start slowed by a busy machine
    // would otherwise use up the instants before the first blob is begun.
    print("ready")
    fflush(nil)
    var k: UInt64 = 0
    // Runs until killed, so it must not outlive its test: once its parent is gone (the
    // test runner killed or crashed) it stops instead of filling the disk, 2 MB a blob.
    let parent = getppid()
    while getppid() == parent {
        let bytes = pattern(seed: seed &+ k, count: size)
        let writer = try store.makeWriter()
        // Progress on stderr (unbuffered), so the test can tell a kill mid-blob from one
        // between blobs even when the blob in progress is an unnamed file.
        FileHandle.standardError.write(Data("writing \(k)\n".utf8))
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            let result = bytes[offset..<end].withUnsafeBytes { raw in
                Result { () throws(BlobStoreError) in try writer.write(raw) }
            }
            try result.get()
            offset = end
            usleep(pauseMicros)
        }
        let stored = try writer.finish()
        try index.record(
            [URLRecord(url: "stress://\(seed)/\(k)", hash: stored.hash, size: stored.size, contentType: "application/octet-stream")],
            blobs: [BlobRecord(hash: stored.hash, size: stored.size)]
        )
        announce(stored.hash)
        FileHandle.standardError.write(Data("published \(k)\n".utf8))
        k &+= 1
    }
    fail("the test that started this writer is gone")
}

func writer(root: URL, seed: UInt64, count: Int) throws(BlobStoreError) {
    let store = try BlobStore(root: root)
    let index = try CacheIndex(store: store)
    var pendingURLs: [URLRecord] = []
    var pendingBlobs: [BlobRecord] = []
    for i in 0..<count {
        let shared = i % 2 == 0
        let contentSeed = shared ? 1_000 + UInt64(i) : seed &* 1_000_000 &+ UInt64(i)
        let size = 1 + (i &* 37_813) % 700_000
        let bytes = pattern(seed: contentSeed, count: size)
        let stored: StoredBlob
        if i % 3 == 0 {
            stored = try store.put(bytes)
        } else {
            let writer = try store.makeWriter()
            let chunk = 1 + (i &* 7_919) % 100_000
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + chunk, bytes.count)
                let result = bytes[offset..<end].withUnsafeBytes { raw in
                    Result { () throws(BlobStoreError) in try writer.write(raw) }
                }
                try result.get()
                offset = end
            }
            stored = try writer.finish()
        }
        let url = shared ? "https://stress.test/shared/\(i)" : "https://stress.test/\(seed)/\(i)"
        pendingURLs.append(URLRecord(url: url, hash: stored.hash, size: stored.size, httpStatus: 200))
        pendingBlobs.append(BlobRecord(hash: stored.hash, size: stored.size))
        if i % 3 == 1 {
            try index.recordFailure(url: "https://stress.test/broken/\(i)", reason: "HTTP 404", httpStatus: 404)
        }
        if pendingURLs.count == 8 || i == count - 1 {
            try index.record(pendingURLs, blobs: pendingBlobs)
            pendingURLs.removeAll(keepingCapacity: true)
            pendingBlobs.removeAll(keepingCapacity: true)
        }
        announce(stored.hash)
    }
}

func bench(root: URL, count: Int, size: Int) throws(BlobStoreError) {
    let store = try BlobStore(root: root)
    let index = try CacheIndex(store: store)
    let inputs = (0..<count).map { pattern(seed: UInt64(9_000_000 + $0), count: size) }
    let clock = ContinuousClock()
    var records: [URLRecord] = []
    let storeStart = clock.now
    do {
        for (i, bytes) in inputs.enumerated() {
            let writer = try store.makeWriter()
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 16_384, bytes.count)
                let result = bytes[offset..<end].withUnsafeBytes { raw in
                    Result { () throws(BlobStoreError) in try writer.write(raw) }
                }
                try result.get()
                offset = end
            }
            let stored = try writer.finish()
            records.append(URLRecord(url: "bench://\(i)", hash: stored.hash, size: stored.size))
        }
    }
    let storeTime = clock.now - storeStart
    let indexStart = clock.now
    try index.record(records)
    let indexTime = clock.now - indexStart
    print("stored \(count) x \(size) bytes in \(storeTime), indexed in one batch in \(indexTime)")
}

func packWriter(root: URL, seed: UInt64, size: Int) throws(BlobStoreError) -> Never {
    let store = try BlobStore(root: root)
    let owner = BlobHash(hashing: Data(pattern(seed: seed, count: 64)))
    // Two versions that differ in every byte, cheap to make and to compare.
    let contents = [[UInt8](repeating: 0xA1, count: size), [UInt8](repeating: 0xB2, count: size)]
    var k = 0
    while true {
        try store.publishDerived(contents[k % 2], at: CacheLayout.pack(owner))
        print("published pack \(k)")
        fflush(nil)
        k += 1
    }
}

let arguments = CommandLine.arguments
func argument(_ position: Int) -> String {
    guard position < arguments.count else { fail("missing argument \(position); see the usage in main.swift") }
    return arguments[position]
}
func number<T: FixedWidthInteger>(_ position: Int) -> T {
    guard let value = T(argument(position)) else { fail("argument \(position) is not a number: \(argument(position))") }
    return value
}

do throws(BlobStoreError) {
    switch argument(1) {
    case "slow-writer":
        try slowWriter(
            root: URL(fileURLWithPath: argument(2)), seed: number(3),
            size: number(4), chunk: max(1, number(5)), pauseMicros: number(6)
        )
    case "writer":
        try writer(root: URL(fileURLWithPath: argument(2)), seed: number(3), count: number(4))
    case "pack-writer":
        try packWriter(root: URL(fileURLWithPath: argument(2)), seed: number(3), size: number(4))
    case "bench":
        try bench(root: URL(fileURLWithPath: argument(2)), count: number(3), size: number(4))
    default:
        fail("unknown mode \(argument(1))")
    }
} catch {
    fail(error.description)
}
