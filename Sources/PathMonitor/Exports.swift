// SPDX-License-Identifier: Apache-2.0
// The client library apps import: the monitors here, with Dispatch queues and asynchronous sequences, over
// PathmondClient's connection and watch (which pathctl uses alone, linking neither Dispatch nor Swift's concurrency
// runtime), whose API and its parts of PathModel come with `import PathMonitor`.
@_exported import PathmondClient
