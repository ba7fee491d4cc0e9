// SPDX-License-Identifier: Apache-2.0
internal import CCurl
import Glibc

/// One GET through libcurl, bound to an interface, bounded in time and size, following no redirect, through no proxy,
/// verifying the server's certificate: the one HTTP client of pathmond, which both checks configure (the connectivity
/// check: http or https, the body's start; the RFC 8908 check: https only, `Accept: application/captive+json`).
struct HTTPTransfer {
    /// The longest the whole exchange may take: connecting, TLS, the answer.
    var timeout: Duration
    /// The most of a body kept; the transfer stops once more arrives (`truncated`).
    var bodyLimit: Int
    /// libcurl's protocol list: what the URI may use.
    var protocols: String
    /// The Accept header sent, if any.
    var accept: String?
    var userAgent: String
    /// A CA bundle to verify certificates with instead of the system's store (tests: `--ca-file`).
    var caFile: String?

    /// How a transfer went.
    enum Outcome: Sendable, Hashable {
        /// No HTTP answer: libcurl's words for why.
        case noAnswer(String)
        /// The exchange ran out of time before an answer.
        case timedOut
        /// An answer: its status, a redirect's target, its Content-Type, and the body's first `bodyLimit` bytes
        /// (`truncated`: there was more).
        case answered(status: Int, location: String?, contentType: String?, body: [UInt8], truncated: Bool)
    }

    func get(_ uri: String, interface: String) -> Outcome {
        guard Self.libraryReady, let handle = curl_easy_init() else { return .noAnswer("libcurl did not start") }
        defer { curl_easy_cleanup(handle) }
        let headers = accept.map { curl_slist_append(nil, "Accept: " + $0) } ?? nil
        defer { curl_slist_free_all(headers) }
        let sink = BodyPrefix(limit: bodyLimit)
        var message = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let milliseconds = Int(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let code: CURLcode = message.withUnsafeMutableBufferPointer { buffer in
            pathmond_curl_set_string(handle, CURLOPT_URL, uri)
            pathmond_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, protocols)
            // A redirect is an answer to judge (a portal's, or an API misbehaving), never followed.
            pathmond_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            // The network just joined is the one asked: a proxy from the environment would answer for another.
            pathmond_curl_set_string(handle, CURLOPT_NOPROXY, "*")
            // "if!": a name, never an address. SO_BINDTODEVICE needs no privilege for a socket's first binding
            // since Linux 5.7: the kernel routes the request by that interface's routes alone. Name resolution is
            // not pinned: a host name is resolved by the system's resolver.
            pathmond_curl_set_string(handle, CURLOPT_INTERFACE, "if!" + interface)
            pathmond_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
            pathmond_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
            if let caFile { pathmond_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
            pathmond_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
            pathmond_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            // No SIGALRM for name resolution's timeout.
            pathmond_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            pathmond_curl_set_string(handle, CURLOPT_USERAGENT, userAgent)
            if let headers { pathmond_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers)) }
            pathmond_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(buffer.baseAddress))
            pathmond_curl_set_write_function(handle) { data, size, count, context in
                // The sink outlives the transfer: `withExtendedLifetime` below holds it.
                let sink = Unmanaged<BodyPrefix>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                guard let data, sink.append(UnsafeRawBufferPointer(start: data, count: length)) else { return 0 }
                return length
            }
            pathmond_curl_set_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
            return withExtendedLifetime(sink) { curl_easy_perform(handle) }
        }
        var status = 0
        pathmond_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        // A body cut short by the bound (CURLE_WRITE_ERROR from the sink) is still an answer, judged on its start.
        guard code == CURLE_OK || (sink.truncated && status > 0) else {
            if code == CURLE_OPERATION_TIMEDOUT { return .timedOut }
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .noAnswer(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        }
        var location: UnsafeMutablePointer<CChar>?
        pathmond_curl_get_string(handle, CURLINFO_REDIRECT_URL, &location)
        var contentType: UnsafeMutablePointer<CChar>?
        pathmond_curl_get_string(handle, CURLINFO_CONTENT_TYPE, &contentType)
        return .answered(
            status: status, location: location.map { String(cString: $0) },
            contentType: contentType.map { String(cString: $0) }, body: sink.bytes, truncated: sink.truncated)
    }

    /// curl_global_init once per process, before the first handle.
    private static let libraryReady: Bool = curl_global_init(Int(CURL_GLOBAL_SSL)) == CURLE_OK
}

/// The body's first bytes; the transfer stops once more than the limit arrives.
private final class BodyPrefix {
    let limit: Int
    var bytes: [UInt8] = []
    var truncated = false

    init(limit: Int) { self.limit = limit }

    func append(_ data: UnsafeRawBufferPointer) -> Bool {
        let room = limit - bytes.count
        bytes.append(contentsOf: data.prefix(room))
        if data.count > room { truncated = true }
        return !truncated
    }
}
