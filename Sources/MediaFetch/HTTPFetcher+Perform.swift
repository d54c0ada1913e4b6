import Foundation
import HTTPTypes

extension HTTPFetcher {
    /// Makes one API call, once, and returns the server's answer as it is.
    ///
    /// Unlike ``fetch(_:makeSink:)`` this neither retries nor judges: a 401, a 429 or a
    /// 503 is a response to read (its body explains it, its headers say when to come
    /// back), because only the caller knows what each means for the API it speaks. Only
    /// failing to get an answer at all — no connection, a timeout, a body over
    /// ``APIRequest/maxBytes``, a request that cannot be sent — is a ``FetchFailure``.
    /// Mirrors do not apply: they are for media hosts. Nothing about the request's
    /// headers is logged.
    public func perform(_ request: APIRequest) async -> Result<APIResponse, FetchFailure> {
        if let problem = Self.validate(request.url) { return .failure(problem) }
        if let problem = CurlTransfer.requestProblem(request) { return .failure(.transport(code: -1, message: problem)) }
        if Task.isCancelled { return .failure(.cancelled) }
        var limits = configuration
        limits.maxBytes = max(0, request.maxBytes)
        if let timeout = request.timeout {
            // libcurl counts in milliseconds; a deadline already past still gets one.
            let bounded = max(timeout, .milliseconds(1))
            limits.totalTimeout = min(limits.totalTimeout, bounded)
            limits.connectTimeout = min(limits.connectTimeout, bounded)
        }
        limits.byteCounter = nil
        let body = UncheckedBox(MemorySink())
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(
                url: request.url, mode: .api(request), configuration: limits
            ) {
                try body.value.write($0)
            }
        } catch {
            return .failure(error)
        }
        if let timeout = request.timeout { transfer.deadline = .now + max(timeout, .milliseconds(1)) }
        if let onFirstByte = request.onFirstByte { transfer.onHead = { head in onFirstByte(head.status.code) } }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (cont: CheckedContinuation<CurlOutcome, Never>) in
                transfer.onComplete = { outcome in cont.resume(returning: outcome) }
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        if let failure = outcome.failure { return .failure(failure) }
        return .success(APIResponse(head: outcome.head, body: body.value.bytes, effectiveURL: outcome.effectiveURL))
    }
}
