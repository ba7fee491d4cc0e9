// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

/// The generic half of dispatch: decoding a call's parameters by its table entry and holding it to the entry's
/// rules, as the daemon does for every method.
@Suite struct VarlinkMethodTests {
    static func frame(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func parametersDecodeAsTheEntrySays() throws {
        let parameters = try Methods.setConstrained.decodeParameters(
            from: Self.frame(
                #"{"method":"io.pathmond.SetConstrained","parameters":{"key":"wifi:Home","constrained":true}}"#))
        #expect(parameters == Methods.SetConstrainedParameters(key: "wifi:Home", constrained: true))
    }

    @Test func absentParametersReadAsEmpty() throws {
        let path = try Methods.getPath.decodeParameters(from: Self.frame(#"{"method":"io.pathmond.GetPath"}"#))
        #expect(path.requirements == nil)
        // A method that needs parameters names "parameters" when there are none, as the daemon always did.
        #expect(throws: VarlinkError.invalidParameter(parameter: "parameters")) {
            try Methods.watchFlow.decodeParameters(from: Self.frame(#"{"method":"io.pathmond.WatchFlow","more":true}"#))
        }
    }

    @Test func aBadFieldIsNamedWithoutThePrefix() {
        #expect(throws: VarlinkError.invalidParameter(parameter: "interface")) {
            try Methods.getInterfaceDescription.decodeParameters(
                from: Self.frame(#"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{}}"#))
        }
        #expect(throws: VarlinkError.invalidParameter(parameter: "constrained")) {
            try Methods.setConstrained.decodeParameters(
                from: Self.frame(#"{"method":"io.pathmond.SetConstrained","parameters":{"constrained":"yes"}}"#))
        }
    }

    /// Whatever is wrong inside them, path requirements are one parameter.
    @Test func badRequirementsNameRequirements() {
        for parameters in [#"{"requirements":5}"#, #"{"requirements":{"family":7}}"#, "5"] {
            #expect(throws: VarlinkError.invalidParameter(parameter: "requirements"), "\(parameters)") {
                try Methods.getPath.decodeParameters(
                    from: Self.frame(#"{"method":"io.pathmond.GetPath","parameters":\#(parameters)}"#))
            }
        }
    }

    /// The methods that take nothing ignore whatever is sent in its place.
    @Test func noParametersIgnoresWhatItGets() throws {
        _ = try Methods.listInterfaces.decodeParameters(
            from: Self.frame(#"{"method":"io.pathmond.ListInterfaces","parameters":5}"#))
        _ = try Methods.getStatus.decodeParameters(
            from: Self.frame(#"{"method":"io.pathmond.GetStatus","parameters":{"x":[1]}}"#))
    }

    @Test func rulesForMoreOnewayAndUpgrade() throws {
        #expect(throws: VarlinkError.expectedMore) {
            try Methods.watchFlow.check(VarlinkCall(method: Methods.watchFlow.name))
        }
        try Methods.watchFlow.check(VarlinkCall(method: Methods.watchFlow.name, more: true))
        try Methods.getPath.check(VarlinkCall(method: Methods.getPath.name, more: true))
        try Methods.setConstrained.check(VarlinkCall(method: Methods.setConstrained.name, oneway: true))
        #expect(throws: VarlinkError.invalidParameter(parameter: "upgrade")) {
            try Methods.getPath.check(VarlinkCall(method: Methods.getPath.name, upgrade: true))
        }
    }

    /// What the client library sends is what it always sent.
    @Test func callsEncodeAsBefore() {
        let call = Methods.watchPath.encodeCall(Methods.PathParameters(requirements: nil), more: true)
        #expect(call == Array(#"{"method":"io.pathmond.WatchPath","more":true,"parameters":{}}"#.utf8) + [0])
        let once = Methods.getStatus.encodeCall(NoParameters())
        #expect(once == Array(#"{"method":"io.pathmond.GetStatus","parameters":{}}"#.utf8) + [0])
    }
}
