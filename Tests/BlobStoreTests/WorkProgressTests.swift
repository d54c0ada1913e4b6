import BlobStore
import Testing

@Suite struct WorkProgressTests {
    @Test func oneLineSaysHowFarAndWhat() {
        let bytes = WorkProgress(unit: .bytes)
        #expect(WorkProgress.text(bytes.snapshot, unit: .bytes) == "starting")
        bytes.setPhase("reading")
        #expect(WorkProgress.text(bytes.snapshot, unit: .bytes) == "reading")
        bytes.setPhase(nil)
        bytes.addTotal(4 << 20)
        bytes.advance(by: 1 << 20)
        #expect(WorkProgress.text(bytes.snapshot, unit: .bytes).hasPrefix("25% "))
        let blobs = WorkProgress(unit: .items("blobs"))
        blobs.addTotal(8)
        blobs.setDone(6)
        blobs.setPhase("checking derived files")
        #expect(WorkProgress.text(blobs.snapshot, unit: blobs.unit) == "75% 6 of 8 blobs, checking derived files")
    }
}
