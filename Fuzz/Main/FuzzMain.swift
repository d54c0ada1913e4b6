import FuzzChecks
import FuzzSupport

// One libFuzzer binary for every target: `fuzz TARGET [libFuzzer arguments]`.
// SwiftPM links `main` to `fuzz_main`; libFuzzer's own `main` is not used.

@_cdecl("fuzz_main")
public func start(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzEntry.main(argc, argv) { data, size in FuzzEntry.run(data, size) }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    FuzzEntry.initialize()
}
