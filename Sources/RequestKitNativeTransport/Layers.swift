// The layers RequestKitNativeTransport builds on, visible in each of its files.
@_exported import RequestKitConnect
@_exported import RequestKitDSL
@_exported import RequestKitSockets
@_exported import RequestKitURLSession
@_exported import RequestKitWebSocket
