// SPDX-License-Identifier: Apache-2.0
@_exported import enum PathModel.AddressFamily
@_exported import enum PathModel.CaptivePortal
@_exported import struct PathModel.CaptivePortalAPIStatus
@_exported import struct PathModel.Flow
@_exported import struct PathModel.FlowStatus
@_exported import struct PathModel.IPAddress
@_exported import enum PathModel.InterfaceKind
@_exported import struct PathModel.LinkQuality
@_exported import enum PathModel.LinkQualityGrade
@_exported import enum PathModel.LinkQualitySource
// What the client library's API is made of, so that `import PathMonitor` alone is enough for an app: the path and
// its parts, the parameters that narrow it, and flows. The rest of PathModel (kernel state, classification,
// policy) is the daemon's business and stays out of an app's namespace.
@_exported import struct PathModel.Path
@_exported import struct PathModel.PathInterface
@_exported import struct PathModel.PathParameters
@_exported import enum PathModel.PathStatus
@_exported import enum PathModel.UnsatisfiedReason
// The errors pathmond answers with, inside `PathmondClientError.remote`.
@_exported import enum PathProtocol.VarlinkError
@_exported import struct PathProtocol.WireLinkQuality
