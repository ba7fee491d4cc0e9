// SPDX-License-Identifier: Apache-2.0
/// The daemon's files use the journal records, the notifier and the log helpers it shares with pathmond-dispatcher
/// as they did when they lived here: one import for the module, not one per file.
@_exported import DaemonRuntime
