// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import PathModel

/// What the probe does for each method: one request through `HTTPTransfer`, configured for that check, and its
/// outcome turned into the method's answer.
struct ProbeChecks {
    /// A CA bundle to verify certificates with instead of the system's store (tests only: `--ca-file`).
    var caFile: String?

    /// The connectivity check: http or https, judged on the body's start. 10 s: NetworkManager allows 20; an answer
    /// that slow is no internet.
    func check(_ request: ProbeRequest) -> ProbeAnswer {
        let transfer = HTTPTransfer(
            timeout: .seconds(10), bodyLimit: ConnectivityClassifier.bodyPrefix, protocols: "http,https",
            userAgent: "pathmond connectivity check", caFile: caFile)
        let exchange: HTTPExchange =
            switch transfer.get(request.uri, interface: request.interface) {
            case .noAnswer(let reason): .noAnswer(reason)
            case .timedOut: .noAnswer("no answer within \(transfer.timeout)")
            case .answered(let status, let location, _, let body, let truncated):
                .answered(status: status, location: location, body: body, truncated: truncated)
            }
        return ConnectivityClassifier.classify(exchange, expecting: request.response)
    }

    /// The RFC 8908 check: https only, asking for `application/captive+json`; a 200 of that type within 64 KiB,
    /// parsed, or why not.
    func askPortalAPI(_ request: PortalAPIRequest) -> PortalAPIRequest.Reply {
        let transfer = HTTPTransfer(
            timeout: .seconds(5), bodyLimit: CaptivePortalAPIStatus.maximumSize, protocols: "https",
            accept: CaptivePortalAPIStatus.mediaType, userAgent: "pathmond", caFile: caFile)
        switch transfer.get(request.uri, interface: request.interface) {
        case .noAnswer(let reason):
            return .failure(.transfer(reason))
        case .timedOut:
            return .failure(.timedOut(transfer.timeout))
        case .answered(let status, let location, let contentType, let body, let truncated):
            if truncated { return .failure(.tooLarge(limit: transfer.bodyLimit)) }
            if (300..<400).contains(status) { return .failure(.redirect(status: status, location: location)) }
            guard status == 200 else { return .failure(.httpStatus(status)) }
            guard let contentType, CaptivePortalAPIStatus.isMediaType(contentType) else {
                return .failure(.wrongContentType(contentType))
            }
            do {
                return .success(try CaptivePortalAPIStatus.parse(body))
            } catch {
                return .failure(.invalidAnswer(error))
            }
        }
    }
}
