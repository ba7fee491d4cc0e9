// SPDX-License-Identifier: Apache-2.0
import Glibc
import NetworkHints
import Testing

@testable import pathmond

// The RFC 8908 check's backoff after failures, and which failures are worth another try (issue 26).

@Test func theBackoffDoublesFromFiveSecondsToTenMinutes() {
    let delays = (1...10).map { CaptivePortalChecker.retries.delay(afterFailures: $0).components.seconds }
    #expect(delays == [5, 10, 20, 40, 80, 160, 320, 600, 600, 600])
    // However long the portal has failed, the delay neither overflows nor passes the bound.
    #expect(CaptivePortalChecker.retries.delay(afterFailures: 10_000) == .seconds(600))
    #expect(CaptivePortalChecker.retries.delay(afterFailures: 0) == .seconds(5))
}

@Test func aSandboxThatForbidsIPSocketsIsNotAskedAgain() {
    #expect(!CaptivePortalCheckError.sandboxed(.noIPSockets).isWorthRetrying)
    #expect(!CaptivePortalCheckError.notHTTPS.isWorthRetrying)
    // A firewall or IPAddressDeny= may be lifted without a restart; a portal may come up.
    #expect(CaptivePortalCheckError.sandboxed(.packetsDenied).isWorthRetrying)
    #expect(CaptivePortalCheckError.httpStatus(503).isWorthRetrying)
    #expect(CaptivePortalCheckError.transfer("Connection reset by peer").isWorthRetrying)
    #expect(CaptivePortalCheckError.timedOut(.seconds(5)).isWorthRetrying)
}

@Test func theSandboxIsToldApartByErrno() {
    // systemd's RestrictAddressFamilies= answers socket(2) with EAFNOSUPPORT, whatever connect's errno says.
    #expect(SandboxRefusal(connectError: 0, socketError: EAFNOSUPPORT) == .noIPSockets)
    #expect(SandboxRefusal(connectError: ECONNREFUSED, socketError: EPERM) == .noIPSockets)
    // IPAddressDeny= lets the socket be made and refuses its first packet: EPERM from connect.
    #expect(SandboxRefusal(connectError: EPERM, socketError: nil) == .packetsDenied)
    // Ordinary failures to connect are no sandbox's doing.
    for error in [0, ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT] {
        #expect(SandboxRefusal(connectError: error, socketError: nil) == nil, "errno \(error)")
    }
    #expect("\(SandboxRefusal.noIPSockets)".contains("RestrictAddressFamilies="))
    #expect("\(CaptivePortalCheckError.sandboxed(.packetsDenied))".contains("IPAddressDeny="))
}
