// SPDX-License-Identifier: Apache-2.0
import JSON
import PathModel
import PathProtocol
import Testing

/// The readers of the calls the daemon serves most (`VarlinkCall+Reading.swift`) read what the synthesized
/// `Decodable` reads and refuse what it refuses: GetPath, WatchPath and WatchFlow calls as clients encode them,
/// and each of them changed one member at a time (`changes(of:)`), envelope and parameters alike.
extension StreamedReplyWriterTests {
    /// Absent a third of the time; each member present or absent, strings that need escaping.
    func randomRequirements(_ random: inout SplitMix) -> WirePathRequirements? {
        guard random.next() % 3 != 0 else { return nil }
        func maybe<Value>(_ value: @autoclosure () -> Value) -> Value? { random.next() % 2 == 0 ? value() : nil }
        var wire = WirePathRequirements(PathParameters())
        wire.requiredInterfaceType = maybe(randomText(&random))
        wire.prohibitedInterfaceTypes = maybe((0..<Int(random.next() % 3)).map { _ in randomText(&random) })
        wire.requiredInterface = maybe(randomText(&random))
        wire.prohibitExpensive = maybe(random.next() % 2 == 0)
        wire.prohibitConstrained = maybe(random.next() % 2 == 0)
        wire.family = maybe(randomText(&random))
        wire.allowUltraConstrained = maybe(random.next() % 2 == 0)
        wire.prohibitRoaming = maybe(random.next() % 2 == 0)
        wire.systemRouting = maybe(random.next() % 2 == 0)
        return wire
    }

    private func randomFlow(_ random: inout SplitMix) -> WireFlow {
        var flow = WireFlow(Flow(interfaceName: "eth0", localAddress: IPAddress("192.0.2.1")!))
        flow.interface = randomText(&random)
        flow.localAddress = randomText(&random)
        flow.remoteAddress = random.next() % 2 == 0 ? randomText(&random) : nil
        flow.requirements = randomRequirements(&random)
        flow.bound = random.next() % 2 == 0 ? random.next() % 2 == 0 : nil
        flow.interfaceIndex = random.next() % 2 == 0 ? Int32(truncatingIfNeeded: random.next()) : nil
        return flow
    }

    /// Each change of `call`: the envelope read and decoded alike, and where it reads, the parameters too.
    private func expectReadAsDecoded<Parameters: Equatable>(
        _ call: [UInt8], _ method: VarlinkMethod<Parameters, some Codable & Sendable>,
        reading read: (JSONValue) throws(JSONShapeError) -> Parameters, counts: inout (read: Int, refused: Int)
    ) throws -> Bool {
        let document = try JSONReader.parse(Array(call.dropLast()))
        for changed in [document] + Self.changes(of: document) {
            var frame: [UInt8] = []
            JSONWriter.append(changed, to: &frame)
            // Read from the bytes, as the daemon reads a call (a change may not be JSON any more: "--1").
            let members = try? JSONReader.parse(frame).object()
            let envelope = members.flatMap { try? VarlinkCall(json: $0) }
            let decodedEnvelope = try? VarlinkCodec().decode(VarlinkCall.self, from: frame)
            #expect(envelope == decodedEnvelope, "\(changed)")
            guard envelope == decodedEnvelope else { return false }
            guard let members, envelope != nil else { continue }
            let parameters = try? read(members.optional("parameters") ?? .object([]))
            let decoded = try? method.decodeParameters(from: frame)
            #expect(parameters == decoded, "\(changed)")
            guard parameters == decoded else { return false }
            if parameters == nil { counts.refused += 1 } else { counts.read += 1 }
        }
        return true
    }

    @Test func callsAreReadAsDecoded() throws {
        var random = SplitMix(seed: 0x6361_6c6d)
        var counts = (read: 0, refused: 0)
        for _ in 0..<60 {
            let path = Methods.PathParameters(requirements: randomRequirements(&random))
            for (method, more) in [(Methods.getPath, false), (Methods.watchPath, true)] {
                let call = method.encodeCall(path, more: more)
                guard
                    try expectReadAsDecoded(call, method, reading: Methods.PathParameters.init(json:), counts: &counts)
                else { return }
            }
            let flow = Methods.FlowParameters(flow: randomFlow(&random))
            let call = Methods.watchFlow.encodeCall(flow, more: true)
            guard
                try expectReadAsDecoded(
                    call, Methods.watchFlow, reading: Methods.FlowParameters.init(json:), counts: &counts)
            else { return }
        }
        #expect(counts.read > 1_000 && counts.refused > 1_000, "\(counts)")
    }
}
