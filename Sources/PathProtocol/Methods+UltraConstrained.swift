// SPDX-License-Identifier: Apache-2.0
extension Methods {
    /// io.pathmond.SetUltraConstrained parameters: exactly one of `interface` and `key`. Kept apart from the
    /// method table so that the attribute can be merged beside changes to the table.
    public struct SetUltraConstrainedParameters: Codable, Sendable, Hashable {
        public var interface: String?
        public var key: String?
        public var ultraConstrained: Bool
        public init(interface: String? = nil, key: String? = nil, ultraConstrained: Bool) {
            self.interface = interface
            self.key = key
            self.ultraConstrained = ultraConstrained
        }
    }
}
