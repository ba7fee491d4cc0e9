// SPDX-License-Identifier: Apache-2.0
/// The Varlink interface definitions pathmond serves through org.varlink.service.GetInterfaceDescription.
/// docs/io.pathmond.varlink holds the same text; a test keeps the two identical.
public enum VarlinkInterfaces {
    /// The name of pathmond's own interface.
    public static let pathmond = "io.pathmond"
    /// The name of the interface every Varlink service implements.
    public static let service = "org.varlink.service"

    /// The description of io.pathmond, in Varlink's interface definition language: one file per concern
    /// (io.pathmond+*.varlink.swift), joined as docs/io.pathmond.varlink has them.
    public static let pathmondDescription = [
        pathsDefinition, machineDefinition, methodsDefinition, historyDefinition, usageDefinition, errorsDefinition,
    ].joined(separator: "\n\n")

    /// The descriptions by interface name.
    public static let descriptions: [String: String] = [
        pathmond: pathmondDescription,
        service: serviceDescription,
    ]
}
