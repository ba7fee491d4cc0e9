// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

/// GetPath and WatchPath calls written as bytes (`writeCall`) are the bytes the Encoder writes (`encodeCall`), for
/// requirements with every member present or absent, strings that need escaping, and a stream asked or not.
extension StreamedReplyWriterTests {
    @Test func pathCallsAreWrittenAsEncoded() {
        var random = SplitMix(seed: 0x6361_6c6c)
        for _ in 0..<2_000 {
            let requirements = randomRequirements(&random)
            let parameters = Methods.PathParameters(requirements: requirements)
            for (method, more) in [(Methods.getPath, false), (Methods.watchPath, true)] {
                let written = method.writeCall(parameters, more: more)
                let encoded = method.encodeCall(parameters, more: more)
                #expect(written == encoded, "\(String(decoding: written, as: UTF8.self))")
                if written != encoded { return }
            }
        }
    }
}
