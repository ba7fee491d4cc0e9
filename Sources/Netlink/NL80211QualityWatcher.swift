// SPDX-License-Identifier: Apache-2.0
internal import CNetlink
import PathModel
import SDEvent

/// Follows the link figures of every associated wireless interface through nl80211: subscribed to the "mlme"
/// multicast group (no privilege needed; joining it takes no connection-quality-monitor thresholds away from
/// wpa_supplicant or iwd, which set them and hear the same events), then one GET_INTERFACE dump and a GET_STATION
/// per station interface. After that, a CONNECT, ROAM or NOTIFY_CQM (an RSSI threshold crossed, beacons or packets
/// lost) makes it ask GET_STATION again for that interface; DISCONNECT drops its figures. Events only: no polling.
/// A signal that drifts without crossing a threshold is not seen until the next event (docs/attributes.md).
///
/// Sendable: everything that changes is `state`, loop-bound (checked) to `loop`'s thread, and so is every libnl call.
public final class NL80211QualityWatcher: WiFiQualitySource, Sendable {
    private let loop: SDEventLoop
    public let support: WiFiSupport
    private let notifications: NL80211Socket?
    private let requests: NL80211Socket?
    /// What changes as the watcher runs; touched on the loop's thread only (or before it runs).
    private let state: LoopBound<State>

    private struct State {
        var source: SDEventSource?
        var handler: ((WiFiLinkQuality) -> Void)?
        var known: [Int32: LinkQuality] = [:]
        var isStopped = false
    }

    /// Opens the sockets and joins "mlme"; never fails: without Wi-Fi, `support` says why and nothing is reported.
    public init(loop: SDEventLoop) {
        self.loop = loop
        state = LoopBound(State(), on: loop)
        do throws(NetlinkError) {
            let notifications = try NL80211Socket(nonBlocking: true)
            try notifications.subscribe(toGroup: NL80211_MULTICAST_GROUP_MLME)
            (self.notifications, requests) = (notifications, try NL80211Socket(nonBlocking: false))
            support = .available
        } catch .objectNotFound {
            (notifications, requests) = (nil, nil)
            support = .unavailable(reason: "no Wi-Fi support: the kernel has no nl80211 (cfg80211)")
        } catch {
            (notifications, requests) = (nil, nil)
            support = .unavailable(reason: "no Wi-Fi support: nl80211 could not be reached: \(error)")
        }
    }

    deinit {
        loop.dispose([state.valueInOwnersDeinit.source], keepingUntilThen: notifications)
    }

    public func start(handler: @escaping (WiFiLinkQuality) -> Void) {
        guard support == .available, let notifications else { return }
        let handler = UncheckedHandler(handler)
        loop.execute {
            guard !self.state.value.isStopped else { return }
            self.state.value.handler = handler.call
            let source = try? self.loop.watchReadable(notifications.fileDescriptor) { [weak self] in self?.drain() }
            self.state.value.source = source
            self.refreshAll()
        }
    }

    public func stop() {
        loop.execute {
            self.state.value.isStopped = true
            self.state.value.source?.cancel()
            self.state.value.source = nil
            self.state.value.handler = nil
        }
    }

    /// Every station interface's figures: at start, and after lost notifications.
    private func refreshAll() {
        guard let requests, case .success(let replies) = requests.getInterfaces() else { return }
        let stations = replies.compactMap { try? NL80211Message.parse($0) }
            .filter { $0.command == NL80211Message.newInterface && $0.ssid != nil }.compactMap(\.interfaceIndex)
        for index in Set(state.value.known.keys).subtracting(stations) { report(index, nil) }
        for index in stations { refresh(index) }
    }

    private func refresh(_ index: Int32) {
        guard let requests, case .success(let replies) = requests.getStations(index: index) else {
            return report(index, nil)
        }
        let station = replies.compactMap { try? NL80211Station.station(in: $0) }.last { $0.interfaceIndex == index }
        report(index, station?.linkQuality)
    }

    private func report(_ index: Int32, _ quality: LinkQuality?) {
        guard state.value.known[index] != quality else { return }
        state.value.known[index] = quality
        // The handler is called outside the state: it may come back in.
        let handler = state.value.handler
        handler?(WiFiLinkQuality(interfaceIndex: index, quality: quality))
    }

    private func drain() {
        guard let notifications else { return }
        var changed: [Int32] = []
        var disconnected: [Int32] = []
        for _ in 0..<256 {
            let result = notifications.receive()
            for bytes in notifications.take() {
                switch try? NL80211Station.event(in: bytes) {
                case .changed(let index, _)?: if !changed.contains(index) { changed.append(index) }
                case .disconnected(let index)?: disconnected.append(index)
                case nil: continue
                }
            }
            if result > 0 { continue }
            if result == 0 || result == -NLE_AGAIN { break }
            // Lost notifications: ask about everything again.
            while notifications.receive() > 0 { _ = notifications.take() }
            return refreshAll()
        }
        for index in disconnected where !changed.contains(index) { report(index, nil) }
        for index in changed { refresh(index) }
    }
}
