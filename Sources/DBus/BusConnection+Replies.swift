// SPDX-License-Identifier: Apache-2.0
internal import CSystemd
import SDEvent

/// Calls whose replies are kept whole (`BusReply`), with typed arguments, waited for or not.
extension BusConnection {
    /// Calls a method and waits for its reply (at most `callTimeout`). Never starts the service. Only on the loop's
    /// thread; for work that must finish before the caller goes on (restoring what was changed, at stop).
    public func callForReply(
        destination: String, path: String, interface: String, member: String, arguments: [BusArgument] = []
    ) throws(BusCallError) -> BusReply {
        let message = try makeCall(
            destination: destination, path: path, interface: interface, member: member, arguments)
        defer { sd_bus_message_unref(message) }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(bus.raw, message, Self.microseconds(callTimeout), &error, &reply)
        defer { sd_bus_message_unref(reply) }
        guard result >= 0, let reply else {
            throw Self.failure(result, name: error.name, message: error.message)
        }
        return BusReply(referencing: reply)
    }

    /// Sends a method call and returns at once; `completion` gets the reply (or why there is none) on the loop,
    /// after sd-bus has finished processing, so it may call again. The main loop never waits for the peer.
    public func callAsync(
        destination: String, path: String, interface: String, member: String, arguments: [BusArgument] = [],
        completion: @escaping (Result<BusReply, BusCallError>) -> Void
    ) throws(BusCallError) {
        let message = try makeCall(
            destination: destination, path: path, interface: interface, member: member, arguments)
        defer { sd_bus_message_unref(message) }
        let box = Unmanaged.passRetained(ReplyBox(completion: completion, loop: loop))
        // A floating slot: sd-bus calls back once, with the reply, an error, a timeout or the connection's end.
        let result = sd_bus_call_async(
            bus.raw, nil, message, replyCallback, box.toOpaque(), Self.microseconds(callTimeout))
        if result < 0 {
            box.release()
            throw .bus(BusError(returned: result))
        }
    }

    private func makeCall(
        destination: String, path: String, interface: String, member: String, _ arguments: [BusArgument]
    ) throws(BusCallError) -> OpaquePointer? {
        guard !isDisconnected else { throw .bus(.notConnected) }
        var message: OpaquePointer?
        do {
            try check(sd_bus_message_new_method_call(bus.raw, &message, destination, path, interface, member))
            sd_bus_message_set_auto_start(message, 0)
            for argument in arguments { try argument.append(to: message) }
        } catch {
            sd_bus_message_unref(message)
            throw .bus(error)
        }
        return message
    }

    /// sd-bus names local failures too (a timeout becomes ...Error.Timeout): only a non-transport errno means the
    /// peer itself answered with an error.
    static func failure(
        _ result: Int32, name: UnsafePointer<CChar>?, message: UnsafePointer<CChar>?
    ) -> BusCallError {
        let failure = BusError(returned: result)
        if let name, !failure.isDisconnect, failure != .timedOut {
            return .errorReply(name: String(cString: name), message: message.map { String(cString: $0) } ?? "")
        }
        return .bus(failure)
    }
}

/// What sd-bus holds as an asynchronous call's userdata, released when its one callback comes.
private final class ReplyBox {
    let completion: (Result<BusReply, BusCallError>) -> Void
    let loop: SDEventLoop

    init(completion: @escaping (Result<BusReply, BusCallError>) -> Void, loop: SDEventLoop) {
        self.completion = completion
        self.loop = loop
    }
}

private let replyCallback: sd_bus_message_handler_t = { message, userdata, _ in
    guard let userdata else { return 0 }
    let box = Unmanaged<ReplyBox>.fromOpaque(userdata).takeRetainedValue()
    let result: Result<BusReply, BusCallError>
    if let message, sd_bus_message_is_method_error(message, nil) == 0 {
        result = .success(BusReply(referencing: message))
    } else if let message, let error = sd_bus_message_get_error(message) {
        let errno = sd_bus_message_get_errno(message)
        result = .failure(BusConnection.failure(-errno, name: error.pointee.name, message: error.pointee.message))
    } else {
        result = .failure(.bus(.badMessage))
    }
    // After processing: the completion may call again.
    // Two transfers, not one of a tuple: Debian's swiftlang 6.2.3, built with assertions, stops in SILGen taking a
    // closure and a value out of one generic tuple (RValue.cpp: sameHaveCleanups).
    let completion = UncheckedHandler(box.completion)
    let delivery = UncheckedTransfer(result)
    box.loop.execute { completion.call(delivery.value) }
    return 0
}
