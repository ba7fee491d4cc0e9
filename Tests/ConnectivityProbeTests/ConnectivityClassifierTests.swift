// SPDX-License-Identifier: Apache-2.0
import ConnectivityProbe
import Testing

/// How an answer is judged: NetworkManager's rule with an expected text, Android's with none; a redirect is always
/// a portal, no answer always limited.
@Suite struct ConnectivityClassifierTests {
    static let expected = "NetworkManager is online"

    func verdict(_ exchange: HTTPExchange, expecting response: String = expected) -> ProbeAnswer.Verdict {
        ConnectivityClassifier.classify(exchange, expecting: response).verdict
    }

    @Test func theExpectedTextIsOpenWithOrWithoutATrailingNewline() {
        #expect(
            verdict(
                .answered(
                    status: 200, location: nil, body: Array("NetworkManager is online".utf8),
                    truncated: false)) == .open)
        #expect(
            verdict(
                .answered(
                    status: 200, location: nil, body: Array("NetworkManager is online\n".utf8),
                    truncated: false)) == .open)
    }

    @Test(arguments: [
        (200, "<html>Hotel sign-in</html>"), (200, ""), (200, "NetworkManager is"), (204, ""),
        (404, "NetworkManager is online"), (500, "NetworkManager is online"), (511, "Network Authentication Required"),
    ])
    func anotherAnswerIsAPortal(_ status: Int, _ body: String) {
        #expect(verdict(.answered(status: status, location: nil, body: Array(body.utf8), truncated: false)) == .portal)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectIsAPortalWithItsTarget(_ status: Int) {
        let answer = ConnectivityClassifier.classify(
            .answered(
                status: status, location: "http://portal.example/login",
                body: Array("NetworkManager is online".utf8), truncated: false),
            expecting: Self.expected)
        #expect(answer.verdict == .portal)
        #expect(answer.location == "http://portal.example/login")
        #expect(answer.status == status)
        // Even with an empty expected answer: a redirect is never what a 204 check expects.
        #expect(verdict(.answered(status: status, location: nil, body: [], truncated: false), expecting: "") == .portal)
    }

    @Test func withNoExpectedTextOnly204OrAnEmpty200IsOpen() {
        #expect(verdict(.answered(status: 204, location: nil, body: [], truncated: false), expecting: "") == .open)
        #expect(verdict(.answered(status: 200, location: nil, body: [], truncated: false), expecting: "") == .open)
        #expect(
            verdict(.answered(status: 200, location: nil, body: Array("<html>".utf8), truncated: false), expecting: "")
                == .portal)
        #expect(verdict(.answered(status: 404, location: nil, body: [], truncated: false), expecting: "") == .portal)
    }

    @Test func noAnswerIsLimitedAndSaysWhy() {
        let answer = ConnectivityClassifier.classify(.noAnswer("Connection timed out after 10000 ms"), expecting: "")
        #expect(answer.verdict == .limited)
        #expect(answer.detail.contains("timed out"))
        #expect(answer.status == nil)
    }

    @Test func aLongBodyIsJudgedOnItsStart() {
        let body = Array(("NetworkManager is online" + String(repeating: "x", count: 10_000)).utf8)
        let cut = Array(body.prefix(ConnectivityClassifier.bodyPrefix))
        #expect(verdict(.answered(status: 200, location: nil, body: cut, truncated: true)) == .open)
        let portal = Array(String(repeating: "<p>", count: 2_000).utf8.prefix(ConnectivityClassifier.bodyPrefix))
        #expect(verdict(.answered(status: 200, location: nil, body: portal, truncated: true)) == .portal)
    }
}
