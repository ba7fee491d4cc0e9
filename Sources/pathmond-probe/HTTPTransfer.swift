// SPDX-License-Identifier: Apache-2.0
internal import CCurl
import ConnectivityProbe
import Glibc

/// One GET through libcurl, bound to an interface, bounded in time and size, following no redirect: what the
/// connectivity check sends. Plain HTTP by design (a portal can only answer a request it can intercept), https
/// allowed for a URI configured so.
struct HTTPTransfer {
    /// The longest the whole exchange may take (NetworkManager allows 20 s; an answer that slow is no internet).
    var timeout = Duration.seconds(10)

    func get(_ uri: String, interface: String) -> HTTPExchange {
        guard Self.libraryReady, let handle = curl_easy_init() else { return .noAnswer("libcurl did not start") }
        defer { curl_easy_cleanup(handle) }
        let sink = BodyPrefix(limit: ConnectivityClassifier.bodyPrefix)
        var message = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let milliseconds = Int(timeout.components.seconds * 1000)
        let code: CURLcode = message.withUnsafeMutableBufferPointer { buffer in
            pathmond_curl_set_string(handle, CURLOPT_URL, uri)
            pathmond_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            // A redirect is the portal's answer: judged, never followed.
            pathmond_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            // The network just joined is the one asked: a proxy from the environment would answer for another.
            pathmond_curl_set_string(handle, CURLOPT_NOPROXY, "*")
            // "if!": a name, never an address. SO_BINDTODEVICE needs no privilege for a socket's first binding
            // since Linux 5.7: the kernel routes the request by that interface's routes alone.
            pathmond_curl_set_string(handle, CURLOPT_INTERFACE, "if!" + interface)
            pathmond_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
            pathmond_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            pathmond_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            pathmond_curl_set_string(handle, CURLOPT_USERAGENT, "pathmond connectivity check")
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
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .noAnswer(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        }
        var location: UnsafeMutablePointer<CChar>?
        pathmond_curl_get_string(handle, CURLINFO_REDIRECT_URL, &location)
        return .answered(
            status: status, location: location.map { String(cString: $0) }, body: sink.bytes,
            truncated: sink.truncated)
    }

    /// curl_global_init once per process, before the first handle.
    private static let libraryReady: Bool = curl_global_init(Int(CURL_GLOBAL_SSL)) == CURLE_OK
}

/// The body's first bytes; the transfer stops once it has enough to judge.
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
