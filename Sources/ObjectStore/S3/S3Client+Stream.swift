import Foundation
import HTTPTypes
import MediaFetch
import Synchronization

extension S3Client {
    /// The object's bytes as they arrive (one GET, no ranges): for a tile server
    /// answering `/blob` of a large original before it is whole. The first bytes
    /// must come by the caller's deadline (``S3Deadline``): a store that sends
    /// nothing by then counts towards marking it down, as any request does. After
    /// them the body has no total limit, since a slow store that answers is not
    /// down, and ends with an error after `stall` without a byte.
    public func stream(_ path: String, maxBytes: Int, stall: Duration) async throws(StoreError) -> ObjectStream? {
        try health?.admit()
        let key = try checkedKey(path)
        var request = APIRequest(url: settings.url(bucket: location.bucket, key: key),
                                  headers: [.amzContentSHA256: Self.emptySHA256], maxBytes: maxBytes)
        request.signing = try await settings.signature()
        let parts = fetcher.stream(request, stallAfter: stall)
        let opening = StreamOpening()
        let (chunks, output) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let endpoint = settings.endpointDescription
        let pump = Task {
            var size: Int? = nil, received = 0
            var answer: (head: HTTPResponse, body: [UInt8])? = nil
            for await part in parts {
                switch part {
                case let .head(head):
                    let length = head.headerFields[values: .contentLength].last.flatMap { Int($0) }
                    if head.status == .ok, let length, length <= maxBytes {
                        size = length
                        opening.open(.streaming(size: length))
                    } else if head.status == .ok {
                        // Larger than allowed, or of no said length (S3 always says it).
                        opening.open(.failed(length == nil ? .transport(code: -1, message: "an answer without a Content-Length")
                                                           : .tooLarge(limit: maxBytes)))
                        return
                    } else {
                        answer = (head, [])
                    }
                case let .bytes(bytes):
                    if let size {
                        received += bytes.count
                        guard received <= size else {
                            output.finish(throwing: StoreError.unreachable(endpoint: endpoint, reason: "more bytes than its Content-Length"))
                            return
                        }
                        output.yield(bytes)
                    } else if var error = answer, error.body.count < 64 << 10 {
                        error.body += bytes
                        answer = error
                    }
                case let .end(head, failure):
                    if let size {
                        if let failure {
                            output.finish(throwing: StoreError.unreachable(endpoint: endpoint, reason: "the transfer broke: \(failure.description)"))
                        } else if received != size {
                            output.finish(throwing: StoreError.unreachable(endpoint: endpoint, reason: "it ended after \(received) of \(size) bytes"))
                        } else {
                            output.finish()
                        }
                    } else if let failure {
                        opening.open(.failed(failure))
                    } else if answer == nil, head.status == .ok,
                              (head.headerFields[values: .contentLength].last.flatMap { Int($0) } ?? 0) == 0 {
                        // A 200 with no body: the object is empty (its head comes with its
                        // first byte, so there was none), and `verify` must judge it.
                        opening.open(.streaming(size: 0))
                        output.finish()
                    } else {
                        opening.open(.answer(APIResponse(head: answer?.head ?? head, body: answer?.body ?? [], effectiveURL: "")))
                    }
                    return
                }
            }
            // Cancelled: the reader left, or no answer came by the deadline.
            opening.open(.failed(.cancelled))
            output.finish(throwing: CancellationError())
        }
        output.onTermination = { _ in pump.cancel() }
        switch await opening.wait(until: S3Deadline.current) {
        case let .streaming(size):
            health?.succeeded()
            return ObjectStream(size: size, chunks: chunks)
        case let .answer(response):
            if response.status < 500 { health?.succeeded() }
            if response.status == 404, S3XML.error(response.body)?.code != "NoSuchBucket" { return nil }
            throw classify(response, key: key)
        case let .failed(failure):
            pump.cancel()
            if case let .tooLarge(limit) = failure { throw .tooLarge(key: key, limit: limit) }
            if case let .untrustedCertificate(why) = failure { throw .untrustedCertificate(endpoint: endpoint, reason: why) }
            throw noAnswer(.unreachable(endpoint: endpoint, reason: failure.description), probing: false)
        case .timedOut:
            pump.cancel()
            throw noAnswer(.unreachable(endpoint: endpoint, reason: "no answer within the deadline"), probing: false)
        }
    }
}

/// How a streamed GET opened, decided once: by its first body bytes, by an answer
/// that is not the object (a 404, an error document), by a failure, or by the
/// caller's deadline passing first.
final class StreamOpening: Sendable {
    enum Outcome: Sendable {
        case streaming(size: Int)
        case answer(APIResponse)
        case failed(FetchFailure)
        case timedOut
    }

    private struct State {
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
    }
    private let state = Mutex(State())

    /// Settles the opening; later calls are ignored.
    func open(_ outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// The outcome, or ``Outcome/timedOut`` once `deadline` passes first.
    func wait(until deadline: ContinuousClock.Instant?) async -> Outcome {
        let timer = deadline.map { deadline in
            Task { [self] in
                try await Task.sleep(until: deadline, clock: .continuous)
                open(.timedOut)
            }
        }
        defer { timer?.cancel() }
        return await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }
}
