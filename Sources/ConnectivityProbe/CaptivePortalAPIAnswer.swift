// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel

/// Reading a captive portal's API answer (RFC 8908): a pure function over the bytes `pathmond-probe` received,
/// beside the probe's messages rather than in the model, which imports nothing. The probe parses what the portal
/// sent; its reply carries the result as a normalized RFC 8908 object, which pathmond reads with the same rules.
extension CaptivePortalAPIStatus {
    /// The largest answer read: RFC 8908's examples are a few hundred bytes; anything near this is not an API.
    public static let maximumSize = 65_536
    /// The largest remaining count kept (2^53, the largest integer a JSON number carries exactly everywhere).
    public static let maximumCount = 9_007_199_254_740_992
    /// Deeper nesting than an API answer could need (in an extension member) is garbage.
    static let maximumDepth = 16

    /// Reads an RFC 8908 answer: a JSON object whose `captive` is a boolean, with optional counts and URLs.
    /// Members RFC 8908 does not define (extensions) are skipped, whatever their type; a defined member of the
    /// wrong type, a duplicated member, and anything that is not one JSON object are errors.
    ///
    /// - Throws: ``CaptivePortalAPIError`` naming the first problem.
    public static func parse(_ bytes: [UInt8]) throws(CaptivePortalAPIError) -> CaptivePortalAPIStatus {
        guard bytes.count <= maximumSize else { throw .tooLarge(size: bytes.count) }
        let document: JSONValue
        do {
            document = try JSONReader.parse(bytes, maximumDepth: maximumDepth)
        } catch {
            if case .duplicateMember(let name) = error.kind { throw .duplicateMember(name) }
            throw .syntax(offset: error.offset, reason: error.reason)
        }
        guard case .object = document else {
            let start = bytes.firstIndex { ![0x20, 0x0a, 0x0d, 0x09].contains($0) } ?? bytes.count
            throw .syntax(offset: start, reason: "expected an object")
        }
        return try parse(document: document)
    }

    /// Reads an RFC 8908 answer already parsed as JSON: the rules of ``parse(_:)`` past the syntax.
    public static func parse(document: JSONValue) throws(CaptivePortalAPIError) -> CaptivePortalAPIStatus {
        guard case .object(let members) = document else { throw .syntax(offset: 0, reason: "expected an object") }
        var captive: Bool?
        var status = CaptivePortalAPIStatus(isCaptive: false)
        for (name, value) in members {
            switch name {
            case "captive":
                guard case .bool(let flag) = value else { throw .wrongType(member: name, expected: "a boolean") }
                captive = flag
            case "seconds-remaining":
                status.secondsRemaining = try count(value, member: name)
            case "bytes-remaining":
                status.bytesRemaining = try count(value, member: name)
            case "user-portal-url", "venue-info-url":
                guard case .string(let text) = value else { throw .wrongType(member: name, expected: "a string") }
                // A URL a log line or terminal could not show as it is, or a sign-in page over plain http, is
                // dropped rather than failing the answer: `captive` is what matters.
                guard CaptivePortalHint.isValidURI(text) else { continue }
                if name == "venue-info-url" {
                    status.venueInfoURL = text
                } else if text.lowercased().hasPrefix("https://") {
                    status.userPortalURL = text
                }
            case "can-extend-session":
                guard case .bool = value else { throw .wrongType(member: name, expected: "a boolean") }
            default:
                continue
            }
        }
        guard let captive else { throw .missingCaptive }
        status.isCaptive = captive
        return status
    }

    /// The answer as RFC 8908 spells it, holding only what was kept: what the probe replies with, for
    /// ``parse(document:)`` on pathmond's side.
    public var rfc8908Document: JSONValue {
        var members: [(String, JSONValue)] = [("captive", .bool(isCaptive))]
        if let secondsRemaining { members.append(("seconds-remaining", .number(String(secondsRemaining)))) }
        if let bytesRemaining { members.append(("bytes-remaining", .number(String(bytesRemaining)))) }
        if let userPortalURL { members.append(("user-portal-url", .string(userPortalURL))) }
        if let venueInfoURL { members.append(("venue-info-url", .string(venueInfoURL))) }
        return .object(members)
    }

    /// Whether a Content-Type names RFC 8908's media type (parameters such as a charset allowed).
    public static func isMediaType(_ contentType: String) -> Bool {
        // A media type holds no whitespace: what there is surrounds it.
        let type = contentType.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }
        return type.lowercased() == mediaType
    }

    /// A remaining count: a non-negative JSON number, a fraction rounded down, capped at ``maximumCount``.
    private static func count(_ value: JSONValue, member: String) throws(CaptivePortalAPIError) -> Int {
        guard case .number(let text) = value, let number = Double(text), number.isFinite, number >= 0 else {
            throw .wrongType(member: member, expected: "a number of at least 0")
        }
        return number >= Double(maximumCount) ? maximumCount : Int(number)
    }
}

/// Why an API answer was not used.
public enum CaptivePortalAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body was larger than ``CaptivePortalAPIStatus/maximumSize``.
    case tooLarge(size: Int)
    /// Not one JSON object: the offset of the offending byte and what was wrong there.
    case syntax(offset: Int, reason: String)
    /// A member RFC 8908 defines had another type.
    case wrongType(member: String, expected: String)
    /// A member appeared twice, so which one counts is ambiguous.
    case duplicateMember(String)
    /// No `captive` member, which RFC 8908 requires.
    case missingCaptive

    public var description: String {
        switch self {
        case .tooLarge(let size): "the answer is \(size) bytes, more than \(CaptivePortalAPIStatus.maximumSize)"
        case .syntax(let offset, let reason): "not a JSON object: \(reason) at byte \(offset)"
        case .wrongType(let member, let expected): "\"\(member)\" is not \(expected)"
        case .duplicateMember(let name): "\"\(name)\" appears twice"
        case .missingCaptive: "no \"captive\" member"
        }
    }
}
