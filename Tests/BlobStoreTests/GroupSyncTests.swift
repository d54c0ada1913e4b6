import Foundation
import Synchronization
import Testing
@testable import BlobStore
import TestSupport

/// The group flush with its two flushes injected: what must hold whatever the timing.
@Suite struct GroupSyncTests {
    /// Runs `sync` for descriptors 0..<count on that many threads at once.
    static func syncAll(_ group: GroupSync, count: Int) async -> [Int32: Bool] {
        await withTaskGroup(of: (Int32, Bool).self) { tasks in
            for fd in 0..<Int32(count) {
                tasks.addTask {
                    await withCheckedContinuation { done in
                        Thread {
                            let ok = (try? group.sync(fd, path: "blob-\(fd)")) != nil
                            done.resume(returning: (fd, ok))
                        }.start()
                    }
                }
            }
            return await tasks.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }

    @Test func aWriterAloneGetsItsOwnFlushAndItsOwnError() throws {
        let calls = Mutex<[Int32]>([])
        let group = GroupSync(
            syncFile: { (fd, path) throws(BlobStoreError) in
                calls.withLock { $0.append(fd) }
                throw .io(operation: "flush to disk", path: path, code: EIO)
            },
            syncFileSystem: { Issue.record("a lone writer must not flush the file system"); return true })
        #expect(throws: BlobStoreError.self) { try group.sync(7, path: "blob-7") }
        // Once: a second fsync after a failed one reports success on Linux, so retrying
        // the same descriptor would hide the failure.
        #expect(calls.withLock { $0 } == [7])
    }

    @Test func whenTheGroupFlushFailsEveryFileIsFlushedOnItsOwn() async {
        let flushed = Mutex<Set<Int32>>([])
        let group = GroupSync(
            syncFile: { (fd, _) throws(BlobStoreError) in _ = flushed.withLock { $0.insert(fd) } },
            syncFileSystem: { false })
        let results = await Self.syncAll(group, count: 32)
        #expect(results.values.allSatisfy { $0 })
        // However the writers happened to group, a failed group flush covered nobody.
        #expect(flushed.withLock { $0 } == Set(0..<32))
    }

    @Test func aFileWhoseOwnFlushFailsIsReportedEvenInAFailedGroup() async {
        let group = GroupSync(
            syncFile: { (fd, path) throws(BlobStoreError) in
                if fd == 5 { throw .io(operation: "flush to disk", path: path, code: EIO) }
            },
            syncFileSystem: { false })
        let results = await Self.syncAll(group, count: 16)
        #expect(results[5] == false)
        #expect(results.filter { !$0.value }.count == 1)
    }

    @Test func aSuccessfulGroupFlushCoversItsMembers() async {
        let groupFlushes = Atomic<Int>(0)
        let fileFlushes = Atomic<Int>(0)
        let group = GroupSync(
            syncFile: { (_, _) throws(BlobStoreError) in fileFlushes.add(1, ordering: .relaxed) },
            syncFileSystem: { groupFlushes.add(1, ordering: .relaxed); return true })
        let results = await Self.syncAll(group, count: 32)
        #expect(results.values.allSatisfy { $0 })
        // Each writer was covered by exactly one flush: its own, or its group's.
        #expect(fileFlushes.load(ordering: .relaxed) + groupFlushes.load(ordering: .relaxed) <= 32)
        #expect(fileFlushes.load(ordering: .relaxed) + groupFlushes.load(ordering: .relaxed) >= 1)
    }

    @Test func filesWrittenBeforeAFailedGroupFlushAreFlushedOnTheirOwn() {
        // syncfs reports a write-back error once, to the round that saw it; files whose
        // pages it failed to write must not count as covered by a later, clean round.
        let flushed = Mutex<[Int32]>([])
        let fileSystemFlushes = Atomic<Int>(0)
        let group = GroupSync(
            syncFile: { (fd, _) throws(BlobStoreError) in flushed.withLock { $0.append(fd) } },
            syncFileSystem: { fileSystemFlushes.add(1, ordering: .relaxed).newValue > 1 })
        let before = group.failureGeneration
        #expect(group.sync([(1, "a"), (2, "b")], since: before).allSatisfy { $0 == nil })
        #expect(group.failureGeneration == before + 1)
        // Written before that failure: flushed one by one though their own round succeeded.
        #expect(group.sync([(3, "c"), (4, "d")], since: before).allSatisfy { $0 == nil })
        // Written after it: covered by the group flush.
        #expect(group.sync([(5, "e"), (6, "f")], since: group.failureGeneration).allSatisfy { $0 == nil })
        #expect(flushed.withLock { $0 } == [1, 2, 3, 4])
        #expect(group.flushFileSystem(since: before) == false)
        #expect(group.flushFileSystem(since: group.failureGeneration))
    }

    @Test func theStoresGroupFlushIsUsedOnlyWhereItReportsErrors() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(root: directory.url)
        // This machine: Linux 5.8+ on ext4/tmpfs/xfs/btrfs, as CI; elsewhere per-file flushes.
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let major = Int(release.split(separator: ".").first ?? "") ?? 0
        if major >= 6 { #expect(store.groupSync.groups) }
    }
}
