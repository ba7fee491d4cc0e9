// SPDX-License-Identifier: Apache-2.0
import Logging

extension LogHandler {
    /// Every field of one record: the handler's own metadata, then its provider's, then the call's, a later one
    /// winning on a name both give (swift-log's order).
    package func fields(of event: LogEvent) -> Logger.Metadata {
        // The common case, a handler with no metadata of its own: the call's, as it is (no copy, no merge).
        if metadata.isEmpty && metadataProvider == nil { return event.metadata ?? [:] }
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let own = event.metadata { fields.merge(own) { _, new in new } }
        return fields
    }
}
