// SPDX-License-Identifier: Apache-2.0
internal import CCurl
import Glibc
import PathModel

/// Asks a captive portal's API (RFC 8908) whether the network holds its user, over HTTPS through libcurl: the
/// certificate verified against the system's CA store (or, for tests, one CA file), no redirect followed, no proxy,
/// the answer bounded in size and the whole exchange in time. `check(_:)` blocks for up to `timeout`: call it off
/// the daemon's main loop and post the result back.
public struct CaptivePortalAPIClient: Sendable {
    /// A CA bundle to verify the portal's certificate with instead of the system's store (tests only).
    public var caFile: String?
    /// The longest the whole exchange may take: connecting, TLS, the answer.
    public var timeout: Duration
    /// The largest answer read; a larger one is refused as it arrives.
    public var maximumSize: Int

    public init(
        caFile: String? = nil, timeout: Duration = .seconds(5), maximumSize: Int = CaptivePortalAPIStatus.maximumSize
    ) {
        self.caFile = caFile
        self.timeout = timeout
        self.maximumSize = maximumSize
    }

    /// Whether `uri` may be asked at all: RFC 8908 section 4 requires HTTPS, and anything else would send the
    /// request (and trust the answer) in the clear.
    public static func isHTTPS(_ uri: String) -> Bool { uri.lowercased().hasPrefix("https://") }

    /// One GET of `uri`, parsed. `interface`, when given, is the one whose network announced the URI: the request
    /// leaves by it whatever the routing prefers, since the portal answers for that network only. Blocks: never on
    /// the main loop.
    public func check(
        _ uri: String, interface: String? = nil
    ) -> Result<CaptivePortalAPIStatus, CaptivePortalCheckError> {
        guard Self.isHTTPS(uri) else { return .failure(.notHTTPS) }
        let body: [UInt8]
        switch fetch(uri, interface: interface) {
        case .success(let bytes): body = bytes
        case .failure(let error): return .failure(error)
        }
        do {
            return .success(try CaptivePortalAPIStatus.parse(body))
        } catch {
            return .failure(.invalidAnswer(error))
        }
    }

    private func fetch(_ uri: String, interface: String?) -> Result<[UInt8], CaptivePortalCheckError> {
        guard Self.libraryReady, let handle = curl_easy_init() else {
            return .failure(.transfer("libcurl did not start"))
        }
        defer { curl_easy_cleanup(handle) }
        let headers = curl_slist_append(nil, "Accept: application/captive+json")
        defer { curl_slist_free_all(headers) }
        let sink = BodySink(limit: maximumSize)
        var message = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let milliseconds = Int(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let code: CURLcode = message.withUnsafeMutableBufferPointer { buffer in
            pathmond_curl_set_string(handle, CURLOPT_URL, uri)
            // Belt and braces beside isHTTPS: libcurl itself speaks nothing but HTTPS for this request.
            pathmond_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "https")
            pathmond_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "https")
            pathmond_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            // The portal is on the network just joined: a proxy from the environment would ask someone else.
            pathmond_curl_set_string(handle, CURLOPT_NOPROXY, "*")
            // "if!": an interface name, never an address. libcurl binds the socket to it (SO_BINDTODEVICE, which
            // needs no privilege for a socket's first binding since Linux 5.7), so the kernel routes it by that
            // interface's routes alone. Name resolution is not pinned: a portal API named by host is resolved by
            // the system's resolver.
            if let interface { pathmond_curl_set_string(handle, CURLOPT_INTERFACE, "if!" + interface) }
            pathmond_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
            pathmond_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
            if let caFile { pathmond_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
            pathmond_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
            pathmond_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            // Threads: no SIGALRM for name resolution's timeout, which would hit whichever thread it liked.
            pathmond_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            pathmond_curl_set_size(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumSize))
            pathmond_curl_set_string(handle, CURLOPT_USERAGENT, "pathmond")
            pathmond_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
            pathmond_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(buffer.baseAddress))
            pathmond_curl_set_write_function(handle) { data, size, count, context in
                // The sink outlives the transfer: `withExtendedLifetime` below holds it.
                let sink = Unmanaged<BodySink>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                guard let data, sink.append(UnsafeRawBufferPointer(start: data, count: length)) else { return 0 }
                return length
            }
            pathmond_curl_set_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
            return withExtendedLifetime(sink) { curl_easy_perform(handle) }
        }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge(limit: maximumSize)) }
        if code == CURLE_OPERATION_TIMEDOUT { return .failure(.timedOut(timeout)) }
        if code == CURLE_COULDNT_CONNECT {
            var connectError = 0
            pathmond_curl_get_long(handle, CURLINFO_OS_ERRNO, &connectError)
            if let refusal = SandboxRefusal(connectError: Int32(connectError), socketError: Self.ipSocketError()) {
                return .failure(.sandboxed(refusal))
            }
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.transfer(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
        var status = 0
        pathmond_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if (300..<400).contains(status) {
            var location: UnsafeMutablePointer<CChar>?
            pathmond_curl_get_string(handle, CURLINFO_REDIRECT_URL, &location)
            return .failure(.redirect(status: status, location: location.map { String(cString: $0) }))
        }
        guard status == 200 else { return .failure(.httpStatus(status)) }
        var type: UnsafeMutablePointer<CChar>?
        pathmond_curl_get_string(handle, CURLINFO_CONTENT_TYPE, &type)
        let mediaType = type.map { String(cString: $0) }
        guard let mediaType, Self.isCaptiveJSON(mediaType) else { return .failure(.wrongContentType(mediaType)) }
        return .success(sink.bytes)
    }

    /// Whether a Content-Type names RFC 8908's media type (parameters such as a charset allowed).
    static func isCaptiveJSON(_ contentType: String) -> Bool {
        // A media type holds no whitespace: what there is surrounds it.
        let mediaType = contentType.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }
        return mediaType.lowercased() == CaptivePortalAPIStatus.mediaType
    }

    /// The errno of making an IPv4 stream socket, or nil when one can be made: what a seccomp filter on socket(2)
    /// answers is not always what libcurl reports.
    static func ipSocketError() -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return errno }
        close(descriptor)
        return nil
    }

    /// curl_global_init once per process, before the first handle (it is not safe to race with handles).
    private static let libraryReady: Bool = curl_global_init(Int(CURL_GLOBAL_SSL)) == CURLE_OK
}

/// The answer as it arrives, refused past its limit. Used by one transfer on one thread.
private final class BodySink {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }

    func append(_ data: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count + data.count <= limit else {
            overflowed = true
            return false
        }
        bytes.append(contentsOf: data)
        return true
    }
}

/// Why a check of a portal's API gave no answer; the path keeps what it had.
public enum CaptivePortalCheckError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URI is not https: refused before any traffic.
    case notHTTPS
    /// libcurl's own words: no connection, a certificate that does not verify, a reset.
    case transfer(String)
    /// This process may not reach the network: its unit's sandbox (or a firewall) refused before any packet left.
    case sandboxed(SandboxRefusal)
    /// The exchange took longer than the client allows.
    case timedOut(Duration)
    /// The answer was larger than the client reads.
    case tooLarge(limit: Int)
    /// The API answered with a redirect, which is never followed.
    case redirect(status: Int, location: String?)
    /// Another HTTP status than 200.
    case httpStatus(Int)
    /// Not RFC 8908's media type.
    case wrongContentType(String?)
    /// The body was not an RFC 8908 answer.
    case invalidAnswer(CaptivePortalAPIError)

    /// Whether asking again later may give an answer. A socket refused by the unit's sandbox stays refused until the
    /// daemon restarts under another unit; anything else (a portal not up yet, a reset, a bad answer) may pass.
    public var isWorthRetrying: Bool {
        switch self {
        case .notHTTPS, .sandboxed(.noIPSockets): false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .notHTTPS: "not an https URI (RFC 8908 requires HTTPS), not asked"
        case .transfer(let detail): "no answer: \(detail)"
        case .sandboxed(let refusal): "not sent: \(refusal)"
        case .timedOut(let limit): "no answer within \(limit)"
        case .tooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .redirect(let status, let location):
            "a redirect (HTTP \(status) to \(location ?? "nowhere")), not followed"
        case .httpStatus(let status): "HTTP status \(status)"
        case .wrongContentType(let type): "content type \(type ?? "missing"), not \(CaptivePortalAPIStatus.mediaType)"
        case .invalidAnswer(let error): "not an RFC 8908 answer: \(error)"
        }
    }
}

/// How the process's own confinement refused a connection, told apart by errno: the words libcurl has for both
/// ("Couldn't connect to server after 0 ms") name neither the cause nor the fix.
public enum SandboxRefusal: Sendable, Hashable, CustomStringConvertible {
    /// No IP socket can be made: systemd's RestrictAddressFamilies= (a seccomp filter) answers EAFNOSUPPORT.
    case noIPSockets
    /// The socket was made but its first packet was refused on the way out (EPERM from connect): systemd's
    /// IPAddressDeny= (a cgroup BPF filter) or a local firewall.
    case packetsDenied

    /// nil when neither error is one a sandbox gives: an ordinary failure to connect.
    public init?(connectError: Int32, socketError: Int32?) {
        if socketError == EAFNOSUPPORT || socketError == EPERM || socketError == EACCES {
            self = .noIPSockets
        } else if connectError == EPERM || connectError == EACCES {
            self = .packetsDenied
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .noIPSockets:
            "pathmond may make no IP socket (the unit's RestrictAddressFamilies=); the check needs the drop-in in "
                + "docs/attributes.md, then daemon-reload and a restart"
        case .packetsDenied:
            "the connection was refused on this host before it left (the unit's IPAddressDeny= or a firewall); "
                + "the check needs the drop-in in docs/attributes.md"
        }
    }
}
