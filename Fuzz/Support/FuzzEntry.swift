import CFuzzDriver
import Foundation
import FuzzChecks

/// What the fuzz binary's entry points do: pick the target named by the first
/// argument, hand the rest to libFuzzer's driver, run each input through the
/// target's ``FuzzCheck``.
public enum FuzzEntry {
    /// The target this process fuzzes, chosen once in ``main(_:_:_:)`` before the
    /// driver starts and only read after.
    nonisolated(unsafe) static var check: (any FuzzCheck.Type)?

    /// `fuzz TARGET [libFuzzer arguments]`.
    public static func main(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ oneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        guard let argv else { return 2 }
        let first = argc >= 2 ? argv[1].map { String(cString: $0) } : nil
        // libFuzzer restarts the program for -fork, -jobs, -merge and -minimize_crash
        // with the arguments it was given, which no longer name the target: the
        // environment does, for those children.
        let variable = "TWEETCACHE_FUZZ_TARGET"
        let named = allFuzzChecks.first { $0.name == first }
        guard let chosen = named ?? ProcessInfo.processInfo.environment[variable].flatMap({ name in
            allFuzzChecks.first { $0.name == name }
        }) else {
            let names = allFuzzChecks.map { $0.name }.joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: fuzz TARGET [libFuzzer arguments]; targets: \(names)\n".utf8))
            return 2
        }
        check = chosen
        setenv(variable, chosen.name, 1)
        var count = argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        if named != nil {
            // The driver sees the program name and the arguments after the target's.
            argv[1] = argv[0]
            count = argc - 1
            arguments = argv + 1
        }
        return LLVMFuzzerRunDriver(&count, &arguments, oneInput)
    }

    /// libFuzzer calls `LLVMFuzzerInitialize` before anything else; when the
    /// `TWEETCACHE_FUZZ_SEEDS` variable names a folder, the target writes its seeds
    /// (made by the project's own code) there and exits, so `scripts/fuzz.sh` needs no
    /// second tool to make them.
    public static func initialize() -> CInt {
        guard let check, let folder = ProcessInfo.processInfo.environment["TWEETCACHE_FUZZ_SEEDS"] else { return 0 }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, bytes) in try check.seeds() {
                try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("could not write seeds: \(error)\n".utf8))
            exit(1)
        }
    }

    /// One input; a broken invariant stops the fuzzer like a crash, with its message.
    public static func run(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        guard let check else { return 0 }
        if let broken = check.run(Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))) {
            FileHandle.standardError.write(Data("invariant broken: \(broken)\n".utf8))
            abort()
        }
        return 0
    }
}
