// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PathModel
import Testing

@testable import PathProtocol

// Varlink calls as a client sends them: the envelope, then each method's parameters, then the model values.

@Test func varlinkDecodingSurvivesMutatedCalls() {
    let seeds = [
        #"{"method":"io.pathmond.GetPath","parameters":{"requirements":{"prohibitExpensive":true,"family":"ipv6"}}}"#,
        #"{"method":"io.pathmond.WatchPath","more":true,"parameters":{"requirements":{"requiredInterfaceType":"wifi","prohibitedInterfaceTypes":["cellular"],"requiredInterface":"wlan0"}}}"#,
        #"{"method":"io.pathmond.WatchFlow","more":true,"parameters":{"flow":{"interface":"eth0","localAddress":"fe80::1%eth0","remoteAddress":"::ffff:10.0.0.2"}}}"#,
        #"{"method":"io.pathmond.SetConstrained","parameters":{"key":"wifi:Home%20Net","constrained":true}}"#,
        #"{"method":"io.pathmond.SetExpensive","parameters":{"interface":"eth0","expensive":null}}"#,
        #"{"method":"io.pathmond.ForgetNetwork","oneway":true,"parameters":{"key":"wired:02:00:00:00:00:01"}}"#,
        #"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.pathmond"}}"#,
    ].map { Array($0.utf8) }
    let words = [
        "{", "}", "[", "]", ",", ":", "\"", "null", "true", "1e999", "\\u0000", "\\ud800", "\"parameters\":",
        "\"more\":true", "\"oneway\":true", "\"upgrade\":true", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
        "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":", "%", "::", "::ffff:", "%eth0",
    ]
    let codec = VarlinkCodec()
    let mutator = Mutator(seeds: seeds, dictionary: words.map { Array($0.utf8) }, seed: 0x7A71_14C0)
    let report = Fuzz.run("varlink-call", count: 100_000, mutator: mutator) { input in
        guard (try? codec.decode(VarlinkCall.self, from: input)) != nil else { return false }
        _ = try? codec.parameters(Methods.PathParameters.self, from: input)?.requirements?.parameters()
        _ = try? codec.parameters(Methods.FlowParameters.self, from: input)?.flow.flow()
        if let key = try? codec.parameters(Methods.SetConstrainedParameters.self, from: input)?.key {
            _ = NetworkKey(key)
        }
        _ = try? codec.parameters(Methods.SetExpensiveParameters.self, from: input)
        _ = try? codec.parameters(Methods.ForgetNetworkParameters.self, from: input)
        _ = try? codec.parameters(Methods.InterfaceDescriptionParameters.self, from: input)
        return true
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}

/// The deepest nesting a call can carry within the daemon's size limit: rejected with an error, not a stack
/// overflow (the parser has a depth limit; this proves it holds at the daemon's frame size).
@Test(arguments: ["[", #"{"a":"#, #"{"method":"#])
func maximallyNestedCallsAreRejected(_ opening: String) {
    let depth = VarlinkCodec.maximumMessageSize / opening.utf8.count
    let frame = Array(String(repeating: opening, count: depth).utf8)
    #expect(throws: VarlinkDecodingError.self) { try VarlinkCodec().decode(VarlinkCall.self, from: frame) }
}
