// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathProtocol
import Testing

@Suite struct VarlinkCodecTests {
    let codec = VarlinkCodec()

    func text(_ bytes: [UInt8]) -> String {
        #expect(bytes.last == 0, "every encoded message ends with NUL")
        return String(decoding: bytes.dropLast(), as: UTF8.self)
    }

    @Test func callNamesItsInterfaceAndMethod() throws {
        let call = try codec.decode(
            VarlinkCall.self, from: Array(#"{"method":"io.pathmond.WatchPath","more":true}"#.utf8))
        #expect(call.interface == "io.pathmond")
        #expect(call.methodName == "WatchPath")
        #expect(call.more == true)
        #expect(call.oneway == nil)
    }

    @Test func replyOmitsAbsentFields() {
        #expect(text(codec.encodeReply(NoParameters())) == #"{"parameters":{}}"#)
        #expect(text(codec.encodeReply(NoParameters(), continues: true)) == #"{"continues":true,"parameters":{}}"#)
    }

    @Test func errorsCarryTheirParameters() {
        #expect(
            text(codec.encodeError(.methodNotFound(method: "io.pathmond.Nope")))
                == #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"io.pathmond.Nope"}}"#)
        #expect(
            text(codec.encodeError(.permissionDenied))
                == #"{"error":"org.varlink.service.PermissionDenied","parameters":{}}"#)
    }

    @Test(arguments: [
        VarlinkError.interfaceNotFound(interface: "x.y"), .methodNotFound(method: "x.y.Z"),
        .invalidParameter(parameter: "interface"), .permissionDenied, .expectedMore,
        .protocolError(reason: "too large"),
    ])
    func errorsRoundTrip(error: VarlinkError) throws {
        let frame = Array(codec.encodeError(error).dropLast())
        let reply = try codec.decode(VarlinkReply<VarlinkError.ErrorParameters>.self, from: frame)
        #expect(VarlinkError(name: reply.error ?? "", parameters: reply.parameters) == error)
    }

    @Test func garbageIsMalformed() {
        #expect(throws: VarlinkDecodingError.self) { try codec.decode(VarlinkCall.self, from: Array("not json".utf8)) }
        #expect(throws: VarlinkDecodingError.invalidField("method")) {
            try codec.decode(VarlinkCall.self, from: Array(#"{"parameters":{}}"#.utf8))
        }
        #expect(throws: VarlinkDecodingError.invalidField("method")) {
            try codec.decode(VarlinkCall.self, from: Array(#"{"method":42}"#.utf8))
        }
    }

    @Test func parametersOfAMethod() throws {
        let frame = Array(
            #"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.pathmond"}}"#.utf8)
        let parameters = try codec.parameters(Methods.InterfaceDescriptionParameters.self, from: frame)
        #expect(parameters?.interface == "io.pathmond")
        let missing = Array(#"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{}}"#.utf8)
        #expect(throws: VarlinkDecodingError.invalidField("parameters.interface")) {
            try codec.parameters(Methods.InterfaceDescriptionParameters.self, from: missing)
        }
    }
}
