// SPDX-License-Identifier: Apache-2.0
internal import CNetlink

/// A libnl error (NLE_*), as returned negated by libnl calls.
///
/// The raw value is the positive NLE_* code. Errors the kernel reports in an NLMSG_ERROR arrive through libnl's
/// errno translation, so `EEXIST` from the kernel is `.exists`, `ENODEV` is `.noDevice`, and so on.
public struct NetlinkError: Error, RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Makes an error from a libnl return value (negative) or a positive NLE_* code.
    package init(code: Int32) {
        self.rawValue = code < 0 ? -code : code
    }

    /// Makes an error from a system errno through libnl's own translation table.
    static func system(errno value: Int32) -> NetlinkError {
        NetlinkError(code: nl_syserr2nlerr(value))
    }

    /// Unspecific failure. NLE_FAILURE
    public static let failure = NetlinkError(rawValue: NLE_FAILURE)
    /// Interrupted system call. NLE_INTR
    public static let interrupted = NetlinkError(rawValue: NLE_INTR)
    /// Bad socket. NLE_BAD_SOCK
    public static let badSocket = NetlinkError(rawValue: NLE_BAD_SOCK)
    /// Try again. NLE_AGAIN
    public static let tryAgain = NetlinkError(rawValue: NLE_AGAIN)
    /// The socket's receive buffer overflowed (ENOBUFS, which libnl folds into this code) and notifications were
    /// lost; from an allocation, out of memory. Either way the only correct state is a fresh dump. NLE_NOMEM
    public static let overflow = NetlinkError(rawValue: NLE_NOMEM)
    /// Object exists. NLE_EXIST
    public static let exists = NetlinkError(rawValue: NLE_EXIST)
    /// Invalid input data or parameter. NLE_INVAL
    public static let invalidInput = NetlinkError(rawValue: NLE_INVAL)
    /// Input data out of range. NLE_RANGE
    public static let outOfRange = NetlinkError(rawValue: NLE_RANGE)
    /// Message size not sufficient. NLE_MSGSIZE
    public static let messageSize = NetlinkError(rawValue: NLE_MSGSIZE)
    /// Operation not supported. NLE_OPNOTSUPP
    public static let notSupported = NetlinkError(rawValue: NLE_OPNOTSUPP)
    /// Address family not supported. NLE_AF_NOSUPPORT
    public static let familyNotSupported = NetlinkError(rawValue: NLE_AF_NOSUPPORT)
    /// Object not found. NLE_OBJ_NOTFOUND
    public static let objectNotFound = NetlinkError(rawValue: NLE_OBJ_NOTFOUND)
    /// Attribute not available. NLE_NOATTR
    public static let noAttribute = NetlinkError(rawValue: NLE_NOATTR)
    /// Missing attribute. NLE_MISSING_ATTR
    public static let missingAttribute = NetlinkError(rawValue: NLE_MISSING_ATTR)
    /// Address family mismatch. NLE_AF_MISMATCH
    public static let familyMismatch = NetlinkError(rawValue: NLE_AF_MISMATCH)
    /// Message sequence number mismatch. NLE_SEQ_MISMATCH
    public static let sequenceMismatch = NetlinkError(rawValue: NLE_SEQ_MISMATCH)
    /// Kernel reported message overflow (NLMSG_OVERRUN). NLE_MSG_OVERFLOW
    public static let messageOverflow = NetlinkError(rawValue: NLE_MSG_OVERFLOW)
    /// Kernel reported truncated message. NLE_MSG_TRUNC
    public static let messageTruncated = NetlinkError(rawValue: NLE_MSG_TRUNC)
    /// Invalid address for specified address family. NLE_NOADDR
    public static let noAddress = NetlinkError(rawValue: NLE_NOADDR)
    /// Source based routing not supported. NLE_SRCRT_NOSUPPORT
    public static let sourceRoutingNotSupported = NetlinkError(rawValue: NLE_SRCRT_NOSUPPORT)
    /// Netlink message is too short. NLE_MSG_TOOSHORT
    public static let messageTooShort = NetlinkError(rawValue: NLE_MSG_TOOSHORT)
    /// Netlink message type is not supported. NLE_MSGTYPE_NOSUPPORT
    public static let messageTypeNotSupported = NetlinkError(rawValue: NLE_MSGTYPE_NOSUPPORT)
    /// Object type does not match cache. NLE_OBJ_MISMATCH
    public static let objectMismatch = NetlinkError(rawValue: NLE_OBJ_MISMATCH)
    /// Unknown or invalid cache type. NLE_NOCACHE
    public static let noCache = NetlinkError(rawValue: NLE_NOCACHE)
    /// Object busy. NLE_BUSY
    public static let busy = NetlinkError(rawValue: NLE_BUSY)
    /// Protocol mismatch. NLE_PROTO_MISMATCH
    public static let protocolMismatch = NetlinkError(rawValue: NLE_PROTO_MISMATCH)
    /// No access (EACCES). NLE_NOACCESS
    public static let noAccess = NetlinkError(rawValue: NLE_NOACCESS)
    /// Operation not permitted (EPERM). NLE_PERM
    public static let notPermitted = NetlinkError(rawValue: NLE_PERM)
    /// Unable to open packet location file. NLE_PKTLOC_FILE
    public static let packetLocationFile = NetlinkError(rawValue: NLE_PKTLOC_FILE)
    /// Unable to parse object. NLE_PARSE_ERR
    public static let parseError = NetlinkError(rawValue: NLE_PARSE_ERR)
    /// Object not found (ENODEV). NLE_NODEV
    public static let noDevice = NetlinkError(rawValue: NLE_NODEV)
    /// Attempt to modify an immutable attribute. NLE_IMMUTABLE
    public static let immutable = NetlinkError(rawValue: NLE_IMMUTABLE)
    /// A dump was interrupted by a change (NLM_F_DUMP_INTR) and has to be repeated. NLE_DUMP_INTR
    public static let dumpInterrupted = NetlinkError(rawValue: NLE_DUMP_INTR)
    /// Attribute has an invalid size. NLE_ATTRSIZE
    public static let attributeSize = NetlinkError(rawValue: NLE_ATTRSIZE)
}

extension NetlinkError: CustomStringConvertible {
    /// libnl's own text for the code (nl_geterror), with the code for searching logs.
    public var description: String {
        "\(String(cString: nl_geterror(rawValue))) (NLE \(rawValue))"
    }
}
