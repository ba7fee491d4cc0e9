// SPDX-License-Identifier: Apache-2.0
import PathProtocol

extension PathmondConnection {
    /// io.pathmond.SetUltraConstrained: marks the network on `interface`, or the one `key` names, ultra-constrained
    /// (a satellite link: constrained, and hidden from clients that did not opt in), or clears the mark.
    public func setUltraConstrained(
        _ ultraConstrained: Bool, interface: String? = nil, key: String? = nil
    ) throws(PathmondClientError) -> NetworkDetails {
        let parameters = Methods.SetUltraConstrainedParameters(
            interface: interface, key: key, ultraConstrained: ultraConstrained)
        return try call(Methods.setUltraConstrained, parameters).network
    }
}
