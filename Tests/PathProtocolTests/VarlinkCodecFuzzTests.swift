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

@Test func nulFramerSurvivesMutatedStreams() {
    let seeds = [
        Array(#"{"method":"io.pathmond.GetPath"}"#.utf8) + [0] + Array(#"{"method":"io.pathmond.ListInterfaces"}"#.utf8)
            + [0],
        [0, 0, 0], Array("{}".utf8),
    ]
    let mutator = Mutator(seeds: seeds, dictionary: [[0], [0, 0]], maximumLength: 2048, seed: 0x40_F4A3)
    let report = Fuzz.run("nul-framer", count: 100_000, mutator: mutator) { input in
        // A small limit, so that the too-large path is taken as often as the whole-message one.
        var framer = NULFramer(maximumSize: 64)
        var messages = 0
        // Fed in two pieces split where the input's first byte says, to vary the boundaries.
        let split = input.isEmpty ? 0 : Int(input[0]) % (input.count + 1)
        for piece in [input[..<split], input[split...]] {
            framer.append(piece)
            do {
                while let message = try framer.nextMessage() {
                    #expect(!message.contains(0) && message.count <= 64)
                    messages += 1
                }
            } catch {
                return messages > 0
            }
        }
        return messages > 0
    }
    #expect(report.accepted > 1000 && report.accepted < report.count)
    #expect(report.peakMemoryGrowthKiB < Fuzz.memoryBoundKiB)
}
